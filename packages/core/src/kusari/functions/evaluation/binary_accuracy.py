"""Accuracy of binary classification."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


class BinaryAccuracy(FunctionNode):
    """Fraction of ``(y >= 0) == t`` over the labels that are not ``-1``."""

    ignore_label = -1

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "t"))
        x_type, t_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            t_type.dtype.kind == "i",
            t_type.shape == x_type.shape,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y, t = inputs
        xp = backend.get_array_module(y)
        valid = t != self.ignore_label
        count = max(1, int(valid.sum()))
        hit = int(((y >= 0).astype(t.dtype) == t).sum())  # t == -1 never matches
        return (xp.asarray(hit / count, dtype=y.dtype),)


def binary_accuracy(y: Any, t: Any) -> Variable:
    """Binary classification accuracy.

    Args:
        y: Scores; a sample is predicted positive where ``y >= 0``.
        t: Labels of ``y``'s shape: 1 positive, 0 negative, -1 ignored.

    Returns:
        ~kusari.Variable: A scalar of ``y``'s dtype (0 when all are ignored).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> y = np.array([1.0, -1.0, 2.0], np.float32)
        >>> F.binary_accuracy(y, np.array([1, 1, -1], np.int32)).array
        array(0.5, dtype=float32)
    """
    return BinaryAccuracy().apply((y, t))[0]
