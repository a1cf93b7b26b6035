"""Hinge loss for multi-class classification."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.loss._helpers import check_reduce
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class Hinge(FunctionNode):
    """One-vs-rest hinge loss ``max(0, 1 - s * x)`` (``s = +1`` at the label)."""

    def __init__(self, norm: str = "L1", reduce: str = "mean") -> None:
        if norm not in ("L1", "L2"):
            raise NotImplementedError(
                f"hinge: norm should be either 'L1' or 'L2', but {norm!r} is given"
            )
        check_reduce("hinge", reduce, ("mean", "no"))
        self.norm = norm
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "t"))
        x, t = in_types
        type_check.expect(
            x.dtype.kind == "f",
            t.dtype.kind == "i",
            x.ndim == 2,
            t.ndim == 1,
            x.shape[0] == t.shape[0],
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, t = inputs
        xp = backend.get_array_module(x)
        n, k = x.shape
        if bool(((t < 0) | (t >= k)).any()):
            raise ValueError(
                f"hinge: labels must be in [0, {k}), got "
                f"{t[(t < 0) | (t >= k)][:5].tolist()}"
            )
        self.retain_inputs((0,))
        sign = -xp.ones_like(x)
        sign[xp.arange(n), t] = 1
        self._sign = sign
        margin = xp.maximum(0, 1 - sign * x)
        loss = margin * margin if self.norm == "L2" else margin
        if self.reduce == "mean":
            return (force_array(loss.sum() / max(n, 1), x.dtype),)
        return (force_array(loss, x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.activation.relu import relu
        from kusari.functions.array.broadcast import broadcast_to

        (x,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        if self.reduce == "mean":
            gy = broadcast_to(gy * (1.0 / max(x.shape[0], 1)), x.shape)
        neg_sign = -self._sign
        if self.norm == "L1":
            active = (1 - self._sign * x.array > 0).astype(x.dtype)
            return gy * (neg_sign * active), None
        return gy * relu(1 - x * self._sign) * (neg_sign * 2), None


def hinge(x: Any, t: Any, norm: str = "L1", reduce: str = "mean") -> Variable:
    """Multi-class one-vs-rest hinge loss.

    Args:
        x: Scores of shape ``(N, K)``.
        t: Integer labels of shape ``(N,)``.
        norm: ``'L1'`` or ``'L2'`` (squared hinge).
        reduce: ``'mean'`` (sum divided by ``N``) or ``'no'`` (elementwise).

    Returns:
        A scalar, or a variable of ``x``'s shape.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.array([[2., -2.]], np.float32)
        >>> F.hinge(x, np.array([0], np.int32)).array
        array(0., dtype=float32)
    """
    return Hinge(norm, reduce).apply((x, t))[0]
