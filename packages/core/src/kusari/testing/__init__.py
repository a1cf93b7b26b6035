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
from kusari.testing._distribution import distribution_unittest
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
    ParameterizedCases,
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
    "distribution_unittest",
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


def _seed_all(seed: int) -> Any:
    """Seed NumPy's (and CuPy's, where loaded) global RNG; return NumPy's old
    state."""
    state = numpy.random.get_state()
    numpy.random.seed(seed)
    from kusari.backends import cuda

    if cuda.available:
        cuda.cupy.random.seed(seed)
    return state


def fix_random(
    seed: int = 0, *, setup_method: str = "setUp", teardown_method: str = "tearDown"
) -> Callable[[Any], Any]:
    """Decorator: run a test with the global RNGs seeded, then restore NumPy's.

    On a function the seed is set around each call. On a test class (as
    Chainer's tests use it) it is set before the class's ``setup_method``, so
    that the data drawn there is fixed too, and NumPy's state is restored
    after ``teardown_method``.

    Example:
        >>> import numpy as np
        >>> from kusari import testing
        >>> @testing.fix_random()
        ... def draw():
        ...     return np.random.rand()
        >>> draw() == draw()
        True
    """

    def decorate_function(f: Any) -> Any:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            state = _seed_all(seed)
            try:
                return f(*args, **kwargs)
            finally:
                numpy.random.set_state(state)

        return wrapper

    def decorate_class(cls: type) -> type:
        setup = getattr(cls, setup_method, None)
        teardown = getattr(cls, teardown_method, None)

        def seeded_setup(self: Any, *args: Any, **kwargs: Any) -> None:
            self._kusari_random_state = _seed_all(seed)
            if setup is None:
                return
            try:
                setup(self, *args, **kwargs)
            except BaseException:
                # unittest skips tearDown when setUp fails: restore here.
                numpy.random.set_state(self._kusari_random_state)
                raise

        def restoring_teardown(self: Any, *args: Any, **kwargs: Any) -> None:
            try:
                if teardown is not None:
                    teardown(self, *args, **kwargs)
            finally:
                numpy.random.set_state(self._kusari_random_state)

        setattr(cls, setup_method, seeded_setup)
        setattr(cls, teardown_method, restoring_teardown)
        return cls

    def decorator(target: Any) -> Any:
        if isinstance(target, ParameterizedCases):  # above @parameterize
            for cls in target:
                decorate_class(cls)
            return target
        if isinstance(target, type):
            return decorate_class(target)
        return decorate_function(target)

    return decorator


def product(parameter: dict[str, Iterable[Any]] | list[Any]) -> list[dict[str, Any]]:
    """Cartesian product of parameter lists, as a list of dicts.

    A key may join several names with commas (``'shape,fans'``); each of its
    values is then a tuple holding one value per name, so names that must
    vary together stay paired.

    Example:
        >>> from kusari import testing
        >>> testing.product({'a': [1, 2], 'b': [3]})
        [{'a': 1, 'b': 3}, {'a': 2, 'b': 3}]
        >>> testing.product({'x,y': [(1, 2), (3, 4)]})
        [{'x': 1, 'y': 2}, {'x': 3, 'y': 4}]

    Raises:
        ValueError: If a value of a comma-joined key is not a tuple or list
            of as many values as the key has names.
    """
    if isinstance(parameter, dict):
        groups = [_named_rows(k, parameter[k]) for k in sorted(parameter)]
        return product_dict(*groups)
    result: list[dict[str, Any]] = [{}]
    for group in parameter:
        result = [dict(r, **g) for r in result for g in group]
    return result


def _named_rows(key: str, values: Iterable[Any]) -> list[dict[str, Any]]:
    """The values of one :func:`product` key as dicts, unpacking ``'a,b'``."""
    names = [n.strip() for n in key.split(",")]
    if len(names) == 1:
        return [{key: v} for v in values]
    rows = []
    for v in values:
        if not isinstance(v, (tuple, list)) or len(v) != len(names):
            raise ValueError(
                f"product: each value of {key!r} must be a tuple of "
                f"{len(names)} values, got {v!r}"
            )
        rows.append(dict(zip(names, v)))
    return rows


def product_dict(*parameters: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Cartesian product of lists of dicts, merged."""
    return [
        dict(itertools.chain.from_iterable(d.items() for d in combo))
        for combo in itertools.product(*parameters)
    ]
