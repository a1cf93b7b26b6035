"""Classification accuracy."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


def check_scores_and_labels(in_types: Any) -> None:
    """``y`` (N, C, d1, ...) float scores, ``t`` (N, d1, ...) integer labels."""
    type_check._argname(in_types, ("y", "t"))
    y_type, t_type = in_types
    type_check.expect(y_type.dtype.kind == "f", t_type.dtype.kind == "i")
    t_ndim = type_check.eval(t_type.ndim)
    type_check.expect(
        y_type.ndim >= t_type.ndim + 1,
        y_type.shape[0] == t_type.shape[0],
        y_type.shape[2 : t_ndim + 1] == t_type.shape[1:],
    )
    for i in range(t_ndim + 1, type_check.eval(y_type.ndim)):
        type_check.expect(y_type.shape[i] == 1)


class Accuracy(FunctionNode):
    """The fraction of samples whose arg-max score is the label (not differentiable)."""

    def __init__(self, ignore_label: int | None = None) -> None:
        self.ignore_label = ignore_label

    def check_type_forward(self, in_types: Any) -> None:
        check_scores_and_labels(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y, t = inputs
        xp = backend.get_array_module(y)
        pred = y.argmax(axis=1).reshape(t.shape)
        hit = pred == t
        if self.ignore_label is None:
            return (xp.asarray(hit.mean(dtype=y.dtype)),)
        valid = t != self.ignore_label
        total = int(valid.sum())
        if total == 0:
            return (xp.asarray(0.0, dtype=y.dtype),)
        count = int((hit & valid).sum())
        return (xp.asarray(count / total, dtype=y.dtype),)


def accuracy(y: Any, t: Any, ignore_label: int | None = None) -> Variable:
    """Classification accuracy of scores ``y`` against integer labels ``t``.

    Args:
        y: Scores of shape ``(N, C, d1, ...)``; the prediction is the arg-max
            along axis 1.
        t: Labels of shape ``(N, d1, ...)``.
        ignore_label: Samples with this label are left out (``None``: use all).

    Returns:
        ~kusari.Variable: A scalar of ``y``'s dtype.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> y = np.array([[0.1, 0.9], [0.8, 0.2]], np.float32)
        >>> F.accuracy(y, np.array([1, 1], np.int32)).array
        array(0.5, dtype=float32)
    """
    return Accuracy(ignore_label).apply((y, t))[0]
