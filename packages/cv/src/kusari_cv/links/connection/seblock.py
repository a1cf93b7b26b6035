"""Squeeze-and-excitation block."""

from __future__ import annotations

from typing import Any

import kusari
import kusari.functions as F
import kusari.links as L


class SEBlock(kusari.Chain):
    """Squeeze-and-excitation: rescales each channel by a learned gate.

    The block averages each channel over space ("squeeze"), passes the
    vector through ``down`` (to ``n_channel // ratio``), ReLU, ``up`` (back to
    ``n_channel``) and a sigmoid ("excitation"), and multiplies the input's
    channels by the result (Hu et al., "Squeeze-and-Excitation Networks").

    Args:
        n_channel: Channels of the input.
        ratio: Reduction ratio of the bottleneck.

    Example:
        >>> import numpy as np
        >>> from kusari_cv.links import SEBlock
        >>> SEBlock(32)(np.ones((1, 32, 4, 4), np.float32)).shape
        (1, 32, 4, 4)
    """

    def __init__(self, n_channel: int, ratio: int = 16) -> None:
        if n_channel // ratio < 1:
            raise ValueError(
                f"SEBlock: n_channel // ratio must be at least 1, got "
                f"n_channel={n_channel}, ratio={ratio}"
            )
        super().__init__()
        reduction_size = n_channel // ratio
        with self.init_scope():
            self.down = L.Linear(n_channel, reduction_size)
            self.up = L.Linear(reduction_size, n_channel)

    def forward(self, u: Any) -> Any:
        """Gates the channels of ``u`` ``(B, C, H, W)``."""
        B, C, H, W = u.shape
        z = F.average(u, axis=(2, 3))
        x = F.relu(self.down(z))
        x = F.sigmoid(self.up(x))
        x = F.broadcast_to(F.reshape(x, (B, C, 1, 1)), (B, C, H, W))
        return u * x
