"""``linear_interpolate``: ``p * x + (1 - p) * y``."""

from __future__ import annotations

from typing import Any

from kusari.function_node import FunctionNode
from kusari.functions.math._helpers import check_float
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class LinearInterpolate(FunctionNode):
    @property
    def label(self) -> str:
        return "linear_interpolate"

    def check_type_forward(self, in_types: Any) -> None:
        check_float(in_types, ("p", "x", "y"))
        type_check.expect(
            in_types[0].shape == in_types[1].shape,
            in_types[0].shape == in_types[2].shape,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        p, x, y = inputs
        return (force_array(p * x + (1 - p) * y, p.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        p, x, y = self.get_retained_inputs()
        g = grad_outputs[0]
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(g * (x - y))
            elif i == 1:
                ret.append(g * p)
            else:
                ret.append(g * (1.0 - p))
        return tuple(ret)


def linear_interpolate(p: Any, x: Any, y: Any) -> Variable:
    """Elementwise ``p * x + (1 - p) * y`` of three same-shaped inputs.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> p = np.array([0.25], np.float32)
        >>> x, y = np.array([4.], np.float32), np.zeros(1, np.float32)
        >>> F.linear_interpolate(p, x, y).array
        array([1.], dtype=float32)
    """
    return LinearInterpolate().apply((p, x, y))[0]
