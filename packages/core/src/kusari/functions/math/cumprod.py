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
        if bool(xp.all(x.array != 0)):
            # d y_j / d x_i = y_j / x_i for j >= i: a reversed cumsum.
            s = flip_axis(Cumsum(ax).apply((flip_axis(gy * y, ax),))[0], ax)
            return (s / x,)
        return (_zero_safe_grad(x, gy, ax),)


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
