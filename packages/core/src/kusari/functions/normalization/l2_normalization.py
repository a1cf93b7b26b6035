"""L2 normalization along an axis."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.array.where import where
from kusari.functions.math.sum import sum as _sum
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class NormalizeL2(FunctionNode):
    """``x / (||x||_2 + eps)`` along ``axis``."""

    def __init__(self, eps: float = 1e-5, axis: Any = 1) -> None:
        self.eps = eps
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")
        ndim = type_check.eval(in_types[0].ndim)
        axes = self.axis if isinstance(self.axis, tuple) else (self.axis,)
        for a in axes:
            if not isinstance(a, int) or not -ndim <= a < ndim:
                raise type_check.InvalidType(
                    "-x.ndim <= axis < x.ndim", f"axis={self.axis!r}, x.ndim={ndim}"
                )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        xp = backend.get_array_module(x)
        norm = xp.sqrt((x * x).sum(axis=self.axis, keepdims=True))
        norm += x.dtype.type(self.eps)
        return (force_array(x / norm, x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        s = _sum(x * x, axis=self.axis, keepdims=True) ** 0.5
        n = s + self.eps
        s_arr = s.array
        if not s_arr.all():
            # A zero vector has <gy, x> = 0 and |x| = 0: its second term is
            # 0 / 0. As in Chainer, it is 0 there (the gradient is gy / eps);
            # dividing by 1 instead of 0 gives exactly that.
            s = where(s_arr != 0, s, backend.get_array_module(s_arr).ones_like(s_arr))
        # d/dx of x / (|x| + eps): gy / n - x * <gy, x> / (n^2 |x|)
        dot = _sum(gy * x, axis=self.axis, keepdims=True)
        return (gy / n - x * (dot / (n * n * s)),)


def normalize(x: Any, eps: float = 1e-5, axis: Any = 1) -> Variable:
    """L2 normalization, ``x / (sqrt(sum(x ** 2, axis)) + eps)``.

    Args:
        x: Input of a float dtype.
        eps: Added to the norm.
        axis: Axis (or tuple of axes) of the norm.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.normalize(np.array([[3., 4.]], np.float32), eps=0.).array
        array([[0.6, 0.8]], dtype=float32)
    """
    return NormalizeL2(eps, axis).apply((x,))[0]
