"""``prod``: product of elements over axes."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.math._helpers import check_float_unary, expand_reduced
from kusari.functions.math.sum import _normalize_axis
from kusari.utils import force_array
from kusari.variable import Variable


class Prod(FunctionNode):
    check_type_forward = staticmethod(check_float_unary)

    def __init__(self, axis: Any = None, keepdims: bool = False) -> None:
        self.axis = axis
        self.keepdims = keepdims

    @property
    def label(self) -> str:
        return "prod"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        (x,) = inputs
        self._axis = _normalize_axis(self.axis, x.ndim, "prod")
        return (force_array(x.prod(axis=self._axis, keepdims=self.keepdims), x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.broadcast import broadcast_to

        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        shape = x.shape
        gy = broadcast_to(
            expand_reduced(grad_outputs[0], shape, self._axis, self.keepdims), shape
        )
        xp = backend.get_array_module(x.array)
        if x.size == 0 or bool(xp.all(x.array != 0)):
            yb = broadcast_to(
                expand_reduced(y, shape, self._axis, self.keepdims), shape
            )
            return (gy * yb / x,)
        return (gy * _prod_of_others(x, self._axis),)


def _prod_of_others(x: Variable, axis: tuple[int, ...] | None) -> Variable:
    """For each element, the product of the other elements of its reduced group.

    Zero-safe: builds an (n, n) matrix per group with ones on the diagonal.
    """
    from kusari.functions.array.reshape import reshape
    from kusari.functions.array.transpose import transpose

    nd = x.ndim
    red = tuple(range(nd)) if axis is None else axis
    kept = tuple([a for a in range(nd) if a not in red])
    perm = kept + red
    xt = transpose(x, perm) if perm != tuple(range(nd)) else x
    kshape = tuple([x.shape[a] for a in kept])
    n = 1
    for a in red:
        n *= x.shape[a]
    xr = reshape(xt, kshape + (1, n))
    xp = backend.get_array_module(x.array)
    eye = xp.eye(n, dtype=x.dtype)
    z = xr * (1 - eye) + eye
    p = Prod(-1).apply((z,))[0]
    p = reshape(p, xt.shape)
    if perm != tuple(range(nd)):
        inv = [0] * nd
        for i, a in enumerate(perm):
            inv[a] = i
        p = transpose(p, tuple(inv))
    return p


def prod(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    """Product of elements over the given axes.

    Args:
        x: Input variable.
        axis: None (all axes), an int, or a tuple of ints.
        keepdims: Keep the reduced axes with length one.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.prod(np.array([[1., 2.], [3., 4.]], np.float32), axis=1).array
        array([ 2., 12.], dtype=float32)
    """
    return Prod(axis, keepdims).apply((x,))[0]
