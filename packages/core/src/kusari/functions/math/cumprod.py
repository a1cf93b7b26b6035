"""``cumprod``: cumulative product along an axis."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.math._helpers import check_float_unary, flip_axis, move_axis_last
from kusari.functions.math.cumsum import Cumsum, _prepare
from kusari.utils import force_array
from kusari.variable import Variable


class Cumprod(FunctionNode):
    """Cumulative product along ``axis`` of an array with ``ndim >= 1``."""

    check_type_forward = staticmethod(check_float_unary)

    def __init__(self, axis: int) -> None:
        self.axis = axis

    @property
    def label(self) -> str:
        return "cumprod"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        (x,) = inputs
        xp = backend.get_array_module(x)
        return (force_array(xp.cumprod(x, axis=self.axis), x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        gy = grad_outputs[0]
        ax = self.axis
        xp = backend.get_array_module(x.array)
        if x.dtype == xp.float16 and x.shape[ax] > 0:
            # In half precision y underflows for modest products, so y / x
            # loses the gradient (tests saw sign flips); scan instead.
            return (_division_free_grad(x, y, gy, ax),)
        if bool(xp.all(x.array != 0)):
            # d y_j / d x_i = y_j / x_i for j >= i: a reversed cumsum.
            s = flip_axis(Cumsum(ax).apply((flip_axis(gy * y, ax),))[0], ax)
            return (s / x,)
        return (_zero_safe_grad(x, gy, ax),)


class _ReverseScan(FunctionNode):
    """``r_i = b_i + a_i * r_{i+1}`` along ``axis`` (``r_n = 0``), any order."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    @property
    def label(self) -> str:
        return "_ReverseScan"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        a, b = inputs
        xp = backend.get_array_module(b)
        am = xp.moveaxis(a, self.axis, 0)
        bm = xp.moveaxis(b, self.axis, 0)
        rm = xp.empty_like(bm)
        acc = xp.zeros_like(bm[0])
        for i in range(bm.shape[0] - 1, -1, -1):
            acc = bm[i] + am[i] * acc
            rm[i] = acc
        return (xp.ascontiguousarray(xp.moveaxis(rm, 0, self.axis)),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (a,) = self.get_retained_inputs()
        (r,) = self.get_retained_outputs()
        ax = self.axis
        # The adjoint of r runs the same recurrence forwards:
        # u_j = g_j + a_{j-1} u_{j-1}, i.e. a reverse scan of flipped arrays.
        a_prev = _shift(a, ax, 1, 0.0)
        u = flip_axis(
            _ReverseScan(ax).apply(
                (flip_axis(a_prev, ax), flip_axis(grad_outputs[0], ax))
            )[0],
            ax,
        )
        ga = u * _shift(r, ax, -1, 0.0)
        return tuple(g for i, g in ((0, ga), (1, u)) if i in indexes)


def _shift(v: Any, ax: int, by: int, fill: float) -> Variable:
    """``v`` moved ``by`` (+1 or -1) places along ``ax``; the gap holds ``fill``."""
    from kusari.functions.array.concat import concat
    from kusari.functions.array.get_item import get_item

    xp = backend.get_array_module(v.array if isinstance(v, Variable) else v)
    lead = (slice(None),) * ax
    edge_shape = v.shape[:ax] + (1,) + v.shape[ax + 1 :]
    edge = xp.full(edge_shape, fill, dtype=v.dtype)
    if by > 0:
        return concat((edge, get_item(v, lead + (slice(None, -1),))), axis=ax)
    return concat((get_item(v, lead + (slice(1, None),)), edge), axis=ax)


def _division_free_grad(x: Variable, y: Variable, gy: Any, ax: int) -> Variable:
    """gx_i = y_{i-1} r_i with r_i = gy_i + x_{i+1} r_{i+1}: no quotient."""
    r = _ReverseScan(ax).apply((_shift(x, ax, -1, 0.0), gy))[0]
    return _shift(y, ax, 1, 1.0) * r


def _zero_safe_grad(x: Variable, gy: Any, ax: int) -> Variable:
    """gx_i = sum_{j >= i} gy_j prod_{k <= j, k != i} x_k, with an (n, n) matrix."""
    from kusari.functions.array.broadcast import broadcast_to
    from kusari.functions.array.reshape import reshape
    from kusari.functions.array.transpose import transpose
    from kusari.functions.math.sum import sum as _sum

    xt, inv = move_axis_last(x, ax)
    gt, _ = move_axis_last(gy, ax)
    n = xt.shape[-1]
    lead = xt.shape[:-1]
    xp = backend.get_array_module(x.array)
    eye = xp.eye(n, dtype=x.dtype)
    z = reshape(xt, lead + (1, n)) * (1 - eye) + eye  # z[..., i, k]
    c = Cumprod(len(lead) + 1).apply((z,))[0]  # prod_{k<=j, k!=i}
    upper = xp.triu(xp.ones((n, n), dtype=x.dtype))  # j >= i
    g = broadcast_to(reshape(gt, lead + (1, n)), lead + (n, n)) * upper
    gx = _sum(g * c, axis=len(lead) + 1)
    return transpose(gx, inv) if inv is not None else gx


def cumprod(x: Any, axis: Any = None) -> Variable:
    """Cumulative product along ``axis`` (of the flattened input if None).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.cumprod(np.array([1., 2., 3.], np.float32)).array
        array([1., 2., 6.], dtype=float32)
    """
    x, ax, _ = _prepare(x, axis, "cumprod")
    return Cumprod(ax).apply((x,))[0]
