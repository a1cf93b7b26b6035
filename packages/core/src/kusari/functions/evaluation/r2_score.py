"""Coefficient of determination, R^2."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


class R2Score(FunctionNode):
    """``1 - SS_res / SS_tot`` per output column (0 where ``SS_tot`` is 0)."""

    def __init__(
        self, sample_weight: Any = None, multioutput: str = "uniform_average"
    ) -> None:
        if sample_weight is not None:
            raise NotImplementedError("r2_score: sample_weight is not supported")
        if multioutput not in ("uniform_average", "raw_values"):
            raise ValueError(
                "r2_score: multioutput must be 'uniform_average' or 'raw_values', "
                f"got {multioutput!r}"
            )
        self.multioutput = multioutput

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("pred", "true"))
        pred_type, true_type = in_types
        type_check.expect(
            pred_type.dtype.kind == "f",
            true_type.dtype == pred_type.dtype,
            true_type.shape == pred_type.shape,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        pred, true = inputs
        xp = backend.get_array_module(pred)
        ss_res = ((pred - true) ** 2).sum(axis=0)
        ss_tot = ((true - true.mean(axis=0)) ** 2).sum(axis=0)
        zero = ss_tot == 0
        ratio = ss_res / xp.where(zero, 1, ss_tot)
        r2 = xp.where(zero, 0.0, 1 - ratio).astype(pred.dtype)
        if self.multioutput == "uniform_average":
            return (xp.asarray(r2.mean(), dtype=pred.dtype),)
        return (xp.asarray(r2),)


def r2_score(
    pred: Any,
    true: Any,
    sample_weight: Any = None,
    multioutput: str = "uniform_average",
) -> Variable:
    """R^2 (coefficient of determination) of a regression.

    Args:
        pred: Predicted values, ``(N,)`` or ``(N, D)``.
        true: True values of the same shape and dtype.
        sample_weight: Not supported (must be None).
        multioutput: ``'uniform_average'`` averages the per-column scores;
            ``'raw_values'`` returns them.

    Returns:
        ~kusari.Variable: A scalar, or one score per column; ``pred``'s dtype.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> t = np.array([1., 2., 3.], np.float32)
        >>> F.r2_score(np.array([1., 2., 4.], np.float32), t).array
        array(0.5, dtype=float32)
    """
    return R2Score(sample_weight, multioutput).apply((pred, true))[0]
