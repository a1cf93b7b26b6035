"""Lasso: add ``rate * sign(W)`` to the gradient (L1 regularization)."""

from __future__ import annotations

from typing import Any

from kusari import backend


class Lasso:
    """Optimizer hook adding ``rate * sign(param)`` to each gradient.

    Args:
        rate: Coefficient of the L1 penalty ``rate * ||W||_1``.
    """

    name = "Lasso"
    call_for_each_param = True
    timing = "pre"

    def __init__(self, rate: float) -> None:
        self.rate = rate

    def __repr__(self) -> str:
        return f"{type(self).__name__}(rate={self.rate})"

    def __call__(self, rule: Any, param: Any) -> None:
        p, g = param.array, param.grad
        if p is None or g is None:
            return
        xp = backend.get_array_module(p)
        rate = self.rate
        if param._loss_scale is not None:
            rate *= param._loss_scale
        g += rate * xp.sign(p)
