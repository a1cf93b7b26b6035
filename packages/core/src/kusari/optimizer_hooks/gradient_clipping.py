"""GradientClipping: rescale all gradients to a maximum global L2 norm."""

from __future__ import annotations

import math
from typing import Any

from kusari import backend


def _sum_sqnorm(arrays: list[Any]) -> float:
    total = 0.0
    for a in arrays:
        xp = backend.get_array_module(a)
        flat = a.ravel()
        total += float(xp.dot(flat, flat))
    return total


class GradientClipping:
    """Optimizer hook scaling every gradient so their joint L2 norm is at most
    ``threshold``.

    Args:
        threshold: The maximum L2 norm of all gradients together.
    """

    name = "GradientClipping"
    timing = "pre"
    call_for_each_param = False

    def __init__(self, threshold: float) -> None:
        self.threshold = threshold

    def __repr__(self) -> str:
        return f"{type(self).__name__}(threshold={self.threshold})"

    def __call__(self, opt: Any) -> None:
        grads = [
            p.grad
            for p in opt.target.params(include_uninit=False)
            if p.grad is not None
        ]
        norm = math.sqrt(_sum_sqnorm(grads))
        if norm == 0:
            return
        threshold = self.threshold
        loss_scale = getattr(opt, "_loss_scale", None)
        if loss_scale is not None:
            threshold *= loss_scale
        rate = threshold / norm
        if rate < 1:
            for g in grads:
                g *= g.dtype.type(rate)
