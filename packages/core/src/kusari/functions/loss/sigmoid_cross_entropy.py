"""Sigmoid cross entropy for binary (multi-label) classification."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.loss._helpers import check_reduce
from kusari.utils import force_array, type_check
from kusari.variable import Variable

_IGNORE_LABEL = -1


class SigmoidCrossEntropy(FunctionNode):
    """``softplus(x) - x * t`` per element; labels ``-1`` are ignored."""

    ignore_label = _IGNORE_LABEL

    def __init__(self, normalize: bool = True, reduce: str = "mean") -> None:
        self.normalize = normalize
        check_reduce("sigmoid_cross_entropy", reduce, ("mean", "no"))
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "t"))
        x, t = in_types
        type_check.expect(
            x.dtype.kind == "f",
            t.dtype.kind == "i",
            x.shape == t.shape,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, t = inputs
        xp = backend.get_array_module(x)
        mask = t != self.ignore_label
        self._mask = mask.astype(x.dtype)
        tf = t.astype(x.dtype)
        loss = (xp.maximum(x, 0) - x * tf + xp.log1p(xp.exp(-abs(x)))) * self._mask
        if self.reduce == "mean":
            count = int(mask.sum()) if self.normalize else x.shape[0] if x.ndim else 1
            self._count = max(count, 1)
            return (force_array(loss.sum() / self._count, x.dtype),)
        return (force_array(loss, x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.activation.sigmoid import sigmoid
        from kusari.functions.array.broadcast import broadcast_to

        x, t = self.get_retained_inputs()
        (gy,) = grad_outputs
        if self.reduce == "mean":
            gy = broadcast_to(gy * (1.0 / self._count), x.shape)
        tf = t.array.astype(x.dtype)
        return gy * ((sigmoid(x) - tf) * self._mask), None


def sigmoid_cross_entropy(
    x: Any, t: Any, normalize: bool = True, reduce: str = "mean"
) -> Variable:
    """Cross entropy between ``sigmoid(x)`` and binary labels ``t``.

    Args:
        x: Scores (pre-sigmoid), any shape.
        t: Integer labels of ``x``'s shape, ``0`` or ``1``; ``-1`` is ignored.
        normalize: With ``reduce='mean'``, divide by the number of
            non-ignored labels (else by ``x.shape[0]``).
        reduce: ``'mean'`` for a scalar, ``'no'`` for the elementwise loss.

    Returns:
        A scalar, or a variable of ``x``'s shape.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.zeros((1, 2), np.float32)
        >>> round(float(F.sigmoid_cross_entropy(x, np.array([[0, 1]])).array), 4)
        0.6931
    """
    return SigmoidCrossEntropy(normalize, reduce).apply((x, t))[0]
