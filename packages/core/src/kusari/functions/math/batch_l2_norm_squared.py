"""``batch_l2_norm_squared``: squared L2 norm of each sample."""

from __future__ import annotations

from typing import Any

from kusari.function_node import FunctionNode
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class BatchL2NormSquared(FunctionNode):
    @property
    def label(self) -> str:
        return "batch_l2_norm_squared"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        # Chainer v7 asks for a batch axis and at least one feature axis.
        type_check.expect(in_types[0].dtype.kind == "f", in_types[0].ndim >= 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        x2 = x.reshape(len(x), -1)
        return (force_array((x2 * x2).sum(axis=1), x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.broadcast import broadcast_to
        from kusari.functions.array.reshape import reshape

        (x,) = self.get_retained_inputs()
        gy = reshape(grad_outputs[0], (len(x),) + (1,) * (x.ndim - 1))
        return (broadcast_to(gy, x.shape) * (x * 2.0),)


def batch_l2_norm_squared(x: Any) -> Variable:
    """Sum of squares over all axes but the first.

    The same as ``(x.reshape(len(x), -1) ** 2).sum(1)``.

    Args:
        x: Float array or Variable of shape ``(N, ...)`` with two axes or
            more (a batch axis and the features); fewer raise ``InvalidType``.

    Returns:
        The ``(N,)`` Variable of the per-sample squared norms.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.batch_l2_norm_squared(np.ones((2, 3), np.float32)).array
        array([3., 3.], dtype=float32)
    """
    return BatchL2NormSquared().apply((x,))[0]
