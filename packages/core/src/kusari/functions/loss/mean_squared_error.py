"""Mean squared error."""

from __future__ import annotations

from typing import Any

from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


class MeanSquaredError(FunctionNode):
    """``mean((x0 - x1) ** 2)`` over all elements."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x0", "x1"))
        type_check.expect(
            in_types[0].dtype.kind == "f",
            in_types[0].dtype == in_types[1].dtype,
            in_types[0].shape == in_types[1].shape,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        diff = (x0 - x1).ravel()
        return (_as0d(diff.dot(diff) / max(diff.size, 1), x0),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.broadcast import broadcast_to

        x0, x1 = self.get_retained_inputs()
        (gy,) = grad_outputs
        coeff = broadcast_to(gy * (2.0 / max(x0.size, 1)), x0.shape)
        gx0 = coeff * (x0 - x1)
        return tuple([gx0 if i == 0 else -gx0 for i in indexes])


def _as0d(value: Any, like: Any) -> Any:
    from kusari import backend

    return backend.get_array_module(like).asarray(value, dtype=like.dtype)


def mean_squared_error(x0: Any, x1: Any) -> Variable:
    """Mean of the squared differences of ``x0`` and ``x1``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.mean_squared_error(np.zeros(2, np.float32), np.ones(2, np.float32)).array
        array(1., dtype=float32)
    """
    return MeanSquaredError().apply((x0, x1))[0]
