"""Sums of several arrays of the same shape, plain and weighted."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


def _check_same(in_types: Any) -> None:
    type_check.expect(in_types.size() > 0)
    for i in range(type_check.eval(in_types.size())):
        t = in_types[i]
        type_check.expect(
            t.dtype.kind == "f",
            t.dtype == in_types[0].dtype,
            t.shape == in_types[0].shape,
        )


class SumArrays(FunctionNode):
    """``y = x_0 + x_1 + ... + x_{n-1}``."""

    def check_type_forward(self, in_types: Any) -> None:
        _check_same(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y = inputs[0].copy()
        for x in inputs[1:]:
            y += x
        return (y,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (gy,) = grad_outputs
        return tuple(gy for _ in indexes)


class WeightedSumArrays(FunctionNode):
    """``y = w_0 x_0 + ... + w_{n-1} x_{n-1}`` with fixed Python weights."""

    def __init__(self, weights: Sequence[float]) -> None:
        self.weights = tuple(float(w) for w in weights)

    def check_type_forward(self, in_types: Any) -> None:
        _check_same(in_types)
        if len(self.weights) != len(in_types):
            raise type_check.InvalidType(
                "len(weights) == len(xs)",
                f"{len(self.weights)} != {len(in_types)}",
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y = inputs[0] * self.weights[0]
        for w, x in zip(self.weights[1:], inputs[1:]):
            y += w * x
        return (y.astype(inputs[0].dtype, copy=False),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (gy,) = grad_outputs
        return tuple(self.weights[i] * gy for i in indexes)


def sum_arrays(xs: Sequence[Any]) -> Variable:
    """Elementwise sum of a sequence of same-shaped arrays or Variables.

    Example:
        >>> import numpy as np
        >>> from kusari_rl.functions import sum_arrays
        >>> sum_arrays([np.ones(2, np.float32), np.full(2, 2, np.float32)]).array
        array([3., 3.], dtype=float32)
    """
    return SumArrays().apply(tuple(xs))[0]


def weighted_sum_arrays(xs: Sequence[Any], weights: Sequence[float]) -> Variable:
    """Elementwise ``sum_i weights[i] * xs[i]``.

    Example:
        >>> import numpy as np
        >>> from kusari_rl.functions import weighted_sum_arrays
        >>> xs = [np.ones(2, np.float32), np.full(2, 2, np.float32)]
        >>> weighted_sum_arrays(xs, [0.5, 2.0]).array
        array([4.5, 4.5], dtype=float32)
    """
    return WeightedSumArrays(weights).apply(tuple(xs))[0]
