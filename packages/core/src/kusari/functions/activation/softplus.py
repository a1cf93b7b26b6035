"""Softplus, ``log(1 + exp(beta * x)) / beta``."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.activation.sigmoid import sigmoid
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class Softplus(FunctionNode):
    """A smooth ReLU; its derivative is ``sigmoid(beta * x)``."""

    def __init__(self, beta: float = 1.0) -> None:
        self.beta = float(beta)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        xp = backend.get_array_module(x)
        bx = x * x.dtype.type(self.beta)
        # max(bx, 0) + log1p(exp(-|bx|)) never overflows.
        y = (
            xp.maximum(bx, x.dtype.type(0)) + xp.log1p(xp.exp(-abs(bx)))
        ) * x.dtype.type(1.0 / self.beta)
        return (force_array(y, x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * sigmoid(x * self.beta),)


def softplus(x: Any, beta: float = 1.0) -> Variable:
    """Softplus, ``log(1 + exp(beta * x)) / beta``.

    Args:
        x: Input variable of a float dtype.
        beta: Sharpness; large values approach ReLU.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.softplus(np.zeros(1, np.float64)).array
        array([0.69315])
    """
    return Softplus(beta).apply((x,))[0]
