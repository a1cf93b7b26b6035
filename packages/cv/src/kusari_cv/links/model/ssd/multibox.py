"""SSD's prediction heads: box offsets and class scores per feature map."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import initializers


class Multibox(kusari.Chain):
    """Convolutional heads predicting offsets and class scores.

    For each feature map one 3x3 convolution predicts 4 offsets and one
    predicts ``n_class`` scores for each of its ``(len(ar) + 1) * 2``
    default boxes per cell.

    Args:
        n_class: Number of classes including the background.
        aspect_ratios: Aspect ratios of each feature map.
        initialW: Weight initializer (LeCun uniform by default).
        initial_bias: Bias initializer (zero by default).
    """

    def __init__(
        self,
        n_class: int,
        aspect_ratios: Sequence[Sequence[float]],
        initialW: Any = None,
        initial_bias: Any = None,
    ) -> None:
        super().__init__()
        self.n_class = n_class
        self.aspect_ratios = aspect_ratios
        if initialW is None:
            initialW = initializers.LeCunUniform()
        if initial_bias is None:
            initial_bias = initializers.Zero()
        init = {"initialW": initialW, "initial_bias": initial_bias}
        with self.init_scope():
            self.loc = kusari.ChainList()
            self.conf = kusari.ChainList()
        for ar in aspect_ratios:
            n = (len(ar) + 1) * 2
            self.loc.add_link(L.Convolution2D(n * 4, 3, pad=1, **init))
            self.conf.add_link(L.Convolution2D(n * n_class, 3, pad=1, **init))

    def forward(self, xs: Sequence[Any]) -> tuple[kusari.Variable, kusari.Variable]:
        """Predict for a list of feature maps.

        Returns:
            ``(mb_locs, mb_confs)`` of shapes ``(B, K, 4)`` and
            ``(B, K, n_class)``, boxes ordered map by map, then row-major
            over cells, then by default box.
        """
        if len(xs) != len(self.loc):
            raise ValueError(
                f"Multibox: expected {len(self.loc)} feature maps, got {len(xs)}"
            )
        locs, confs = [], []
        for i, x in enumerate(xs):
            loc = F.transpose(self.loc[i](x), (0, 2, 3, 1))
            locs.append(F.reshape(loc, (loc.shape[0], -1, 4)))
            conf = F.transpose(self.conf[i](x), (0, 2, 3, 1))
            confs.append(F.reshape(conf, (conf.shape[0], -1, self.n_class)))
        return F.concat(locs, axis=1), F.concat(confs, axis=1)
