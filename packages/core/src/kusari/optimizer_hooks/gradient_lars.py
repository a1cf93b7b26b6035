"""GradientLARS: layer-wise adaptive rate scaling of gradients."""

from __future__ import annotations

from typing import Any

from kusari import backend


class GradientLARS:
    """Optimizer hook implementing LARS (You et al., 2017).

    Each gradient becomes ``rate * (g + weight_decay * W)`` where the local
    rate is ``||W|| / (eps + ||g|| + weight_decay * ||W||)`` if it exceeds
    ``threshold`` and 1 otherwise.

    Args:
        threshold: Local rates at or below this are replaced by 1.
        weight_decay: L2 coefficient folded into the gradient.
        eps: Keeps the denominator positive.
    """

    name = "GradientLARS"
    call_for_each_param = True
    timing = "pre"

    def __init__(
        self, threshold: float = 1e-2, weight_decay: float = 0.0, eps: float = 1e-9
    ) -> None:
        self.threshold = threshold
        self.weight_decay = weight_decay
        self.eps = eps

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(threshold={self.threshold}, "
            f"weight_decay={self.weight_decay}, eps={self.eps})"
        )

    def __call__(self, rule: Any, param: Any) -> None:
        p, g = param.array, param.grad
        if p is None or g is None:
            return
        xp = backend.get_array_module(p)
        p_norm = xp.linalg.norm(p)
        g_norm = xp.linalg.norm(g)
        local_rate = p_norm / (self.eps + g_norm + self.weight_decay * p_norm)
        rate = xp.where(local_rate > self.threshold, local_rate, 1.0).astype(g.dtype)
        g += g.dtype.type(self.weight_decay) * p
        g *= rate
