"""Private helpers shared by the math functions (type checks, special functions)."""

from __future__ import annotations

import math
from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.math.sum import sum_to
from kusari.utils import force_array, type_check


def check_float(in_types: Any, names: tuple[str, ...] = ("x",)) -> None:
    """All inputs named and of one float dtype."""
    type_check._argname(in_types, names)
    type_check.expect(in_types[0].dtype.kind == "f")
    for t in in_types[1:]:
        type_check.expect(in_types[0].dtype == t.dtype)


def check_float_unary(in_types: Any) -> None:
    check_float(in_types, ("x",))


def expand_reduced(
    gy: Any, in_shape: tuple[int, ...], axis: tuple[int, ...] | None, keepdims: bool
) -> Any:
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


_MATH_FALLBACK = {"erf": math.erf, "erfc": math.erfc, "gammaln": math.lgamma}


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
        raise ImportError(
            f"{fname} requires SciPy (scipy.special.{name}); install scipy to use it"
        ) from e
    return getattr(ss, name)


def flip_axis(x: Any, axis: int) -> Any:
    """``x`` reversed along ``axis`` (differentiable, via get_item)."""
    from kusari.functions.array.get_item import get_item

    return get_item(x, (slice(None),) * axis + (slice(None, None, -1),))


def move_axis_last(x: Any, axis: int) -> tuple[Any, tuple[int, ...] | None]:
    """Transpose ``axis`` to the end; returns the result and the inverse permutation."""
    from kusari.functions.array.transpose import transpose

    nd = x.ndim
    if axis == nd - 1:
        return x, None
    perm = tuple([a for a in range(nd) if a != axis]) + (axis,)
    inv = tuple(int(i) for i in numpy.argsort(perm))
    return transpose(x, perm), inv


class AxisOutOfBoundsError(type_check.InvalidType, ValueError):
    """An ``axis`` outside ``[-ndim, ndim)``.

    Chainer's ``cumsum``/``cumprod`` reported it from their type check
    (:class:`~kusari.utils.type_check.InvalidType`); kusari raised
    ``ValueError``. Being both keeps code written for either working.
    """


def normalize_int_axis(axis: Any, ndim: int, fname: str) -> int:
    if not isinstance(axis, (int, numpy.integer)) or isinstance(axis, bool):
        raise TypeError(f"{fname}: axis must be an int or None, got {axis!r}")
    if not -ndim <= axis < max(ndim, 1):
        raise AxisOutOfBoundsError(
            f"{-ndim} <= axis < {ndim}",
            f"axis = {axis}",
            f"{fname}: axis {axis} is out of bounds for an array of ndim {ndim}",
        )
    return int(axis) % max(ndim, 1)


def linalg(fname: str, func: Any, a: Any) -> Any:
    """Run a ``numpy.linalg``-style function (float16 is computed in float32)."""
    dtype = a.dtype
    if dtype == numpy.float16:
        a = a.astype(numpy.float32)
    try:
        y = func(a)
    except numpy.linalg.LinAlgError as e:
        raise numpy.linalg.LinAlgError(f"{fname}: {e}") from None
    return y.astype(dtype, copy=False)


def check_square(in_types: Any, ndim: int, fname: str) -> None:
    """One float input of ``ndim`` axes whose last two are equal."""
    type_check._argname(in_types, ("a",))
    a = in_types[0]
    type_check.expect(a.dtype.kind == "f", a.ndim == ndim)
    type_check.expect(a.shape[ndim - 1] == a.shape[ndim - 2])


class SpecialUnary(FunctionNode):
    """An elementwise special function of one float input (SciPy-backed).

    Subclasses set ``name`` (the ``scipy.special`` name, also the label) and
    define ``backward``; the input and the output are retained.
    """

    name = "erf"
    scipy_name = ""  # when it differs from ``name``
    check_type_forward = staticmethod(check_float_unary)

    @property
    def label(self) -> str:
        return self.name

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        (x,) = inputs
        f = special(
            self.scipy_name or self.name, self.name, backend.get_array_module(x)
        )
        return (force_array(f(x), x.dtype),)


def routed_grads(
    indexes: Any, gy: Any, to_first: Any, x1: Any, x2: Any
) -> tuple[Any, ...]:
    """Gradients of an element-wise choice between two broadcast inputs.

    ``gy`` goes to ``x1`` where ``to_first`` holds and to ``x2`` elsewhere
    (maximum, minimum); a broadcast input gets its part summed back to its
    own shape.
    """
    out = []
    for i in indexes:
        x = x1 if i == 0 else x2
        gx = gy * (to_first if i == 0 else ~to_first).astype(gy.dtype)
        out.append(gx if gx.shape == x.shape else sum_to(gx, x.shape))
    return tuple(out)
