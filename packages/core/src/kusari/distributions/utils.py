"""Helpers shared by the distributions (not part of the public API)."""

from __future__ import annotations

from typing import Any

import numpy

import kusari.functions as F
from kusari import backend
from kusari.variable import Variable, as_variable

LOG_2PI = float(numpy.log(2 * numpy.pi))
EULER = 0.5772156649015329


def param(x: Any, name: str, owner: str) -> Variable:
    """A parameter as a float Variable (arrays are wrapped, Variables kept)."""
    if x is None:
        raise TypeError(f"{owner}: {name} is required")
    v = as_variable(x)
    if v.dtype.kind != "f":
        raise TypeError(f"{owner}: {name} must be a float array, got {v.dtype}")
    return v


def one_of(owner: str, **kwargs: Any) -> tuple[str, Any]:
    """The only non-None keyword; errors when none or several are given."""
    given = [(k, v) for k, v in kwargs.items() if v is not None]
    names = " or ".join(kwargs)
    if len(given) != 1:
        raise ValueError(f"{owner}: either {names} (exactly one) must have a value")
    return given[0]


def as_data(x: Any, dtype: Any) -> Variable:
    """A realisation value as a Variable of ``dtype`` (float data is cast)."""
    if isinstance(x, Variable):
        return x
    xp = backend.get_array_module(x)
    return Variable(xp.asarray(x, dtype=dtype))


def where(cond: Any, x: Any, y: Any, dtype: Any) -> Variable:
    """``F.where`` with broadcasting and scalar branches."""
    xs = x.shape if isinstance(x, Variable) else numpy.shape(x)
    ys = y.shape if isinstance(y, Variable) else numpy.shape(y)
    cond_arr = cond.array if isinstance(cond, Variable) else cond
    xp = backend.get_array_module(cond_arr)
    shape = numpy.broadcast_shapes(numpy.shape(cond_arr), xs, ys)

    def full(v: Any, s: tuple[int, ...]) -> Any:
        if isinstance(v, Variable):
            return v if s == shape else F.broadcast_to(v, shape)
        return xp.broadcast_to(xp.asarray(v, dtype=dtype), shape)

    return F.where(
        xp.broadcast_to(xp.asarray(cond_arr), shape), full(x, xs), full(y, ys)
    )


def in_support(x: Variable, ok: Any, fill: float) -> Variable:
    """``x`` with the entries outside the support (``~ok``) replaced by ``fill``.

    Used before taking logs so that out-of-support points give a clean -inf
    (through :func:`where`) instead of NaN and NumPy warnings.
    """
    if bool(ok.all()):
        return x
    return where(ok, x, fill, x.dtype)


def safe_log(x: Any) -> Variable:
    """``F.log`` without NumPy's divide-by-zero warning (log 0 is -inf)."""
    with numpy.errstate(divide="ignore"):
        return F.log(x)


def safe_log1p(x: Any) -> Variable:
    """``F.log1p`` without NumPy's divide-by-zero warning (log1p(-1) is -inf)."""
    with numpy.errstate(divide="ignore"):
        return F.log1p(x)


def lbeta(a: Any, b: Any) -> Variable:
    """log B(a, b)."""
    return F.lgamma(a) + F.lgamma(b) - F.lgamma(a + b)


def xlogy(x: Variable, logy: Variable) -> Variable:
    """``x * logy`` with 0 where ``x == 0`` (so that 0 * -inf is 0)."""
    zero = x.array == 0
    if not bool(zero.any()):
        return x * logy
    safe = where(zero, 0.0, logy, logy.dtype)
    return x * safe


def sample_array(dist_xp: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    """Call ``xp.random.<name>``."""
    return getattr(dist_xp.random, name)(*args, **kwargs)
