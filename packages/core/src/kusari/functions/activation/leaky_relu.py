"""Leaky rectified linear unit."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.activation.relu import ReLUGrad
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class LeakyReLU(FunctionNode):
    """``x`` where ``x >= 0``, ``slope * x`` elsewhere."""

    def __init__(self, slope: float = 0.2) -> None:
        self.slope = slope

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        xp = backend.get_array_module(x)
        s = x.dtype.type(self.slope)
        pos = x >= 0
        self.factor = xp.where(pos, x.dtype.type(1), s)
        return (force_array(xp.where(pos, x, x * s)),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return ReLUGrad(self.factor).apply(grad_outputs)


def leaky_relu(x: Any, slope: float = 0.2) -> Variable:
    """Leaky ReLU: ``x`` for ``x >= 0`` and ``slope * x`` otherwise.

    Args:
        x: Input variable of a float dtype.
        slope: Slope on the negative side.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.leaky_relu(np.array([-1., 2.], np.float32), slope=0.5).array
        array([-0.5,  2. ], dtype=float32)
    """
    return LeakyReLU(slope).apply((x,))[0]
