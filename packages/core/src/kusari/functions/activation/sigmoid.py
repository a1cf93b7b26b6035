"""Logistic sigmoid."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class Sigmoid(FunctionNode):
    """``1 / (1 + exp(-x))``, computed as ``tanh(x / 2) / 2 + 1 / 2`` (no overflow)."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        x, = inputs
        xp = backend.get_array_module(x)
        half = x.dtype.type(0.5)
        return force_array(xp.tanh(x * half) * half + half),

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        y, = self.get_retained_outputs()
        return grad_outputs[0] * (y * (1.0 - y)),


def sigmoid(x: Any) -> Variable:
    """Elementwise logistic sigmoid.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.sigmoid(np.zeros(1, np.float32)).array
        array([0.5], dtype=float32)
    """
    return Sigmoid().apply((x,))[0]
