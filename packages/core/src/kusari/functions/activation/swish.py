"""Swish, ``x * sigmoid(beta * x)``."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.activation import _param_broadcast as _pb
from kusari.functions.activation.sigmoid import sigmoid
from kusari.utils import force_array
from kusari.variable import Variable


class Swish(FunctionNode):
    """``x * sigmoid(beta * x)`` with ``beta`` broadcast from axis 1."""

    def check_type_forward(self, in_types: Any) -> None:
        _pb.check_param(in_types, ("x", "beta"))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, beta = inputs
        xp = backend.get_array_module(x)
        half = x.dtype.type(0.5)
        bx = x * _pb.expand_param(beta, x.shape)
        return (force_array(x * (xp.tanh(bx * half) * half + half)),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x, beta = self.get_retained_inputs()
        (gy,) = grad_outputs
        bb = _pb.broadcast_param(beta, x.shape)
        s = sigmoid(bb * x)
        ds = s * (1.0 - s)  # sigmoid' at beta * x
        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                ret.append(gy * (s + bb * x * ds))
            else:
                ret.append(_pb.reduce_to_param(gy * x * x * ds, beta.shape))
        return tuple(ret)


def swish(x: Any, beta: Any) -> Variable:
    """Swish activation, ``x * sigmoid(beta * x)``.

    Args:
        x: Input variable of a float dtype, ``ndim >= beta.ndim + 1``.
        beta: Parameter with ``beta.shape == x.shape[1:1 + beta.ndim]``;
            broadcast over the batch axis and the trailing axes.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.swish(np.array([[0., 2.]], np.float64), np.ones(2)).array
        array([[0.        , 1.76159]])
    """
    return Swish().apply((x, beta))[0]
