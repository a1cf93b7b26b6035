"""Private helpers shared by the math functions (type checks, special functions)."""

from __future__ import annotations

import math
from typing import Any

import numpy

from kusari.utils import type_check


def check_float(in_types: Any, names: tuple[str, ...] = ("x",)) -> None:
    """All inputs named and of one float dtype."""
    type_check._argname(in_types, names)
    type_check.expect(in_types[0].dtype.kind == "f")
    for t in in_types[1:]:
        type_check.expect(in_types[0].dtype == t.dtype)


def check_float_unary(in_types: Any) -> None:
    check_float(in_types, ("x",))


def expand_reduced(gy: Any, in_shape: tuple[int, ...], axis: tuple[int, ...] | None,
                   keepdims: bool) -> Any:
    """Reshape a reduction's gradient so that it broadcasts against the input."""
    from kusari.functions.array.reshape import reshape

    if keepdims:
        return gy
    if axis is None:
        return reshape(gy, (1,) * len(in_shape))
    kept = list(gy.shape)
    for a in axis:
        kept.insert(a, 1)
    return reshape(gy, tuple(kept))


_MATH_FALLBACK = {"erf": math.erf, "erfc": math.erfc, "lgamma": math.lgamma}


def special(name: str, fname: str, xp: Any) -> Any:
    """``scipy.special.<name>`` (``cupyx.scipy.special`` on GPU), imported lazily.

    erf, erfc and lgamma fall back to the ``math`` module on the CPU.
    """
    if xp is not numpy:  # pragma: no cover - needs CuPy
        try:
            import cupyx.scipy.special as cs
        except ImportError as e:
            raise ImportError(f"{fname} on GPU requires cupyx.scipy.special") from e
        return getattr(cs, name)
    try:
        import scipy.special as ss
    except ImportError as e:
        if name in _MATH_FALLBACK:
            return numpy.vectorize(_MATH_FALLBACK[name], otypes=[numpy.float64])
        raise ImportError(f"{fname} requires SciPy (scipy.special.{name}); "
                          "install scipy to use it") from e
    return getattr(ss, name)
