"""Light-Head R-CNN's large separable convolution ("global context module")."""

from __future__ import annotations

from typing import Any

import kusari
import kusari.functions as F
import kusari.links as L


class GlobalContextModule(kusari.Chain):
    """Sum of a ``k x 1`` then ``1 x k`` and a ``1 x k`` then ``k x 1``
    convolution, followed by ReLU: a cheap ``k x k`` receptive field.

    Args:
        in_channels: Input channels.
        mid_channels: Channels between the two convolutions of a path.
        out_channels: Output channels.
        ksize: Long side ``k`` of the kernels (odd; the output keeps the size).
        initialW: Weight initializer.
    """

    def __init__(
        self,
        in_channels: int,
        mid_channels: int,
        out_channels: int,
        ksize: int,
        initialW: Any = None,
    ) -> None:
        super().__init__()
        pad = (ksize - 1) // 2
        with self.init_scope():
            self.col_max = L.Convolution2D(
                in_channels, mid_channels, (ksize, 1), 1, (pad, 0), initialW=initialW
            )
            self.col = L.Convolution2D(
                mid_channels, out_channels, (1, ksize), 1, (0, pad), initialW=initialW
            )
            self.row_max = L.Convolution2D(
                in_channels, mid_channels, (1, ksize), 1, (0, pad), initialW=initialW
            )
            self.row = L.Convolution2D(
                mid_channels, out_channels, (ksize, 1), 1, (pad, 0), initialW=initialW
            )

    def forward(self, x: Any) -> kusari.Variable:
        """``relu(col(col_max(x)) + row(row_max(x)))``."""
        return F.relu(self.col(self.col_max(x)) + self.row(self.row_max(x)))
