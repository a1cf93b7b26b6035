"""Testing utilities: array comparison, random seeding, the op checker.

Example:
    >>> import numpy as np
    >>> import kusari.functions as F
    >>> from kusari import testing
    >>> testing.check_op(F.tanh, np.tanh, [(2, 3)], dtype=np.float64)
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable
from typing import Any

import numpy

from kusari.testing import attr, condition
from kusari.testing.array import assert_allclose
from kusari.testing.backend import BackendConfig, inject_backend_tests
from kusari.testing.function_link import (
    FunctionTestCase,
    FunctionTestError,
    LinkTestError,
)
from kusari.testing.helper import (
    assert_warns,
    generate_matrix,
    patch,
    run_module,
    with_requires,
    without_requires,
)
from kusari.testing.link_test import (
    InitializerArgument,
    LinkInitializersTestCase,
    LinkTestCase,
)
from kusari.testing.ops import DEFAULT_TOLERANCES, check_op, make_noncontiguous
from kusari.testing.parameterized import (
    from_pytest_parameterize,
    parameterize,
    parameterize_pytest,
)
from kusari.testing.serializer import (
    save_and_load,
    save_and_load_hdf5,
    save_and_load_npz,
)
from kusari.testing.training import get_trainer_with_mock_updater
from kusari.testing.unary_math_function_test import unary_math_function_unittest

__all__ = [
    "DEFAULT_TOLERANCES",
    "BackendConfig",
    "FunctionTestCase",
    "FunctionTestError",
    "InitializerArgument",
    "LinkInitializersTestCase",
    "LinkTestCase",
    "LinkTestError",
    "assert_allclose",
    "assert_warns",
    "attr",
    "check_op",
    "condition",
    "fix_random",
    "from_pytest_parameterize",
    "generate_matrix",
    "generate_seed",
    "get_trainer_with_mock_updater",
    "inject_backend_tests",
    "make_noncontiguous",
    "parameterize",
    "parameterize_pytest",
    "patch",
    "product",
    "product_dict",
    "run_module",
    "save_and_load",
    "save_and_load_hdf5",
    "save_and_load_npz",
    "unary_math_function_unittest",
    "with_requires",
    "without_requires",
]


def generate_seed() -> int:
    """A fresh random seed."""
    return int(numpy.random.SeedSequence().generate_state(1)[0])


def fix_random(seed: int = 0) -> Callable[[Any], Any]:
    """Decorator: run a test with NumPy's global RNG seeded, then restore it.

    Example:
        >>> import numpy as np
        >>> from kusari import testing
        >>> @testing.fix_random()
        ... def draw():
        ...     return np.random.rand()
        >>> draw() == draw()
        True
    """

    def decorator(f: Any) -> Any:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            state = numpy.random.get_state()
            numpy.random.seed(seed)
            try:
                return f(*args, **kwargs)
            finally:
                numpy.random.set_state(state)

        return wrapper

    return decorator


def product(parameter: dict[str, Iterable[Any]] | list[Any]) -> list[dict[str, Any]]:
    """Cartesian product of parameter lists, as a list of dicts.

    Example:
        >>> from kusari import testing
        >>> testing.product({'a': [1, 2], 'b': [3]})
        [{'a': 1, 'b': 3}, {'a': 2, 'b': 3}]
    """
    if isinstance(parameter, dict):
        keys = sorted(parameter)
        values = [list(parameter[k]) for k in keys]
        return [dict(zip(keys, combo)) for combo in itertools.product(*values)]
    result: list[dict[str, Any]] = [{}]
    for group in parameter:
        result = [dict(r, **g) for r in result for g in group]
    return result


def product_dict(*parameters: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Cartesian product of lists of dicts, merged."""
    return [
        dict(itertools.chain.from_iterable(d.items() for d in combo))
        for combo in itertools.product(*parameters)
    ]
