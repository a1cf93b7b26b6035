"""Elementwise squared difference."""

from __future__ import annotations

from typing import Any

from kusari.function_node import FunctionNode
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class SquaredDifference(FunctionNode):
    """``(x1 - x2) ** 2`` elementwise."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x1", "x2"))
        type_check.expect(
            in_types[0].dtype.kind == "f",
            in_types[0].dtype == in_types[1].dtype,
            in_types[0].shape == in_types[1].shape,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        d = inputs[0] - inputs[1]
        return (force_array(d * d),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x1, x2 = self.get_retained_inputs()
        g = grad_outputs[0] * 2.0 * (x1 - x2)
        return tuple(g if i == 0 else -g for i in indexes)


def squared_difference(x1: Any, x2: Any) -> Variable:
    """Squared difference of two inputs of one shape, ``(x1 - x2) ** 2``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.squared_difference(np.array([1., 3.], np.float32),
        ...                      np.array([2., 1.], np.float32)).array
        array([1., 4.], dtype=float32)
    """
    return SquaredDifference().apply((x1, x2))[0]
