"""Clipped rectified linear unit, ``min(max(0, x), z)``."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.activation.relu import ReLUGrad
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class ClippedReLU(FunctionNode):
    """``min(max(0, x), z)``; the gradient passes where ``0 < x < z``."""

    def __init__(self, z: float) -> None:
        if not isinstance(z, (int, float)) or isinstance(z, bool) or not z > 0:
            raise ValueError(f"clipped_relu: z must be a positive number, got {z!r}")
        self.cap = float(z)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        xp = backend.get_array_module(x)
        self.mask = (x > 0) & (x < self.cap)
        return (force_array(xp.clip(x, x.dtype.type(0), x.dtype.type(self.cap))),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return ReLUGrad(self.mask).apply(grad_outputs)


def clipped_relu(x: Any, z: float = 20.0) -> Variable:
    """Clipped rectified linear unit, ``min(max(0, x), z)``.

    Args:
        x: Input variable of a float dtype.
        z: Positive clipping value.

    Returns:
        ~kusari.Variable: Output of the same shape and dtype as ``x``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.clipped_relu(np.array([-1., 2., 30.], np.float32), z=10.).array
        array([ 0.,  2., 10.], dtype=float32)
    """
    return ClippedReLU(z).apply((x,))[0]
