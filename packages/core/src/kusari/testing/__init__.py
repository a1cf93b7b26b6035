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

from kusari.testing.array import assert_allclose
from kusari.testing.ops import DEFAULT_TOLERANCES, check_op, make_noncontiguous

__all__ = [
    "DEFAULT_TOLERANCES",
    "assert_allclose",
    "check_op",
    "fix_random",
    "generate_seed",
    "make_noncontiguous",
    "product",
    "product_dict",
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
