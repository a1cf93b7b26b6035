"""Channel-wise L2 normalization with a learned scale (SSD's ``norm4``)."""

from __future__ import annotations

import numbers
from typing import Any

import kusari
import kusari.functions as F
from kusari import initializers


class Normalize(kusari.Link):
    """L2-normalize along channels, then multiply by a per-channel scale.

    Args:
        n_channel: Number of channels.
        initial: Initial scale: a number or an initializer.
        eps: Added to the norm to avoid division by zero.

    Example:
        >>> import numpy as np
        >>> norm = Normalize(2, initial=3)
        >>> x = np.array([[[[3.0]], [[4.0]]]], np.float32)
        >>> np.round(norm(x).array.ravel(), 4)
        array([1.8, 2.4], dtype=float32)
    """

    def __init__(self, n_channel: int, initial: Any = 0, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        if isinstance(initial, numbers.Number):
            initial = initializers.Constant(initial)
        with self.init_scope():
            self.scale = kusari.Parameter(initial)
            self.scale.initialize((n_channel,))

    def forward(self, x: Any) -> kusari.Variable:
        """Normalize ``x`` of shape ``(B, n_channel, H, W)``."""
        x = F.normalize(x, eps=self.eps, axis=1)
        scale = F.reshape(self.scale, (1, -1, 1, 1))
        return x * F.broadcast_to(scale, x.shape)
