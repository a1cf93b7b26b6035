"""WeightDecay: add ``rate * W`` to the gradient (L2 regularization)."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.backends import cuda


class WeightDecay:
    """Optimizer hook adding ``rate * param`` to each gradient.

    Args:
        rate: Coefficient of the L2 penalty ``rate / 2 * ||W||^2``.

    Attributes:
        name: ``'WeightDecay'``.
        timing: ``'pre'``.
        call_for_each_param: True.
    """

    name = "WeightDecay"
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
        rate = self.rate
        # Pre-hooks of the optimizer see gradients still multiplied by the
        # loss scale; scale the penalty alike.
        if param._loss_scale is not None:
            rate *= param._loss_scale
        if backend.get_array_module(p) is not numpy:
            cuda.elementwise("T p, T decay", "T g", "g += decay * p", "weight_decay")(
                p, rate, g
            )
        else:
            g += rate * p
