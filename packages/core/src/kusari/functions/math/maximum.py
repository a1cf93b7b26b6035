"""``maximum``: the elementwise larger of two arrays."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.math._helpers import check_float, routed_grads
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class Maximum(FunctionNode):
    @property
    def label(self) -> str:
        return "maximum"

    def check_type_forward(self, in_types: Any) -> None:
        check_float(in_types, ("x1", "x2"))
        # v7 broadcasts the two inputs against each other.
        type_check.expect_broadcast_shapes(in_types[0].shape, in_types[1].shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        xp = backend.get_array_module(x1)
        return (force_array(xp.maximum(x1, x2), x1.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x1, x2 = self.get_retained_inputs()
        cond = x1.array >= x2.array
        return routed_grads(indexes, grad_outputs[0], cond, x1, x2)


def maximum(x1: Any, x2: Any) -> Variable:
    """Elementwise larger of two inputs, broadcast together.

    Where they are equal the gradient goes to ``x1``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> a, b = np.array([1., 4.], np.float32), np.array([3., 2.], np.float32)
        >>> F.maximum(a, b).shape
        (2,)
    """
    return Maximum().apply((x1, x2))[0]
