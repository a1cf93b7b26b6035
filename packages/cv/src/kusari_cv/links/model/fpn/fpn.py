"""Feature Pyramid Network on top of a multi-scale base extractor."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import initializers


class FPN(kusari.Chain):
    """Top-down pathway with lateral connections (Lin et al., 2017).

    Every base map gets a 1x1 lateral convolution to 256 channels, the
    coarser map (nearest-upsampled x2) is added, and a 3x3 convolution
    smooths the sum; extra coarser levels come from stride-2 subsampling of
    the last map until there is one map per entry of ``scales``.

    Args:
        base: Returns maps whose sizes halve from one to the next, and has
            ``mean``.
        n_base_output: Number of maps ``base`` returns.
        scales: Scale of every output map relative to the input.
    """

    def __init__(self, base: Any, n_base_output: int, scales: Sequence[float]) -> None:
        super().__init__()
        with self.init_scope():
            self.base = base
            self.inner = kusari.ChainList()
            self.outer = kusari.ChainList()
        init: dict[str, Any] = {"initialW": initializers.GlorotNormal()}
        for _ in range(n_base_output):
            self.inner.append(L.Convolution2D(256, 1, **init))
            self.outer.append(L.Convolution2D(256, 3, pad=1, **init))
        self.scales = tuple(scales)

    @property
    def mean(self) -> Any:
        """The base extractor's mean image."""
        return self.base.mean

    def forward(self, x: Any) -> list[kusari.Variable]:
        """``len(scales)`` feature maps of 256 channels, finest first."""
        hs = list(self.base(x))
        for i in reversed(range(len(hs))):
            hs[i] = self.inner[i](hs[i])
            if i + 1 < len(hs):
                hs[i] = hs[i] + F.unpooling_2d(hs[i + 1], 2, cover_all=False)
        for i in range(len(hs)):
            hs[i] = self.outer[i](hs[i])
        while len(hs) < len(self.scales):
            hs.append(F.max_pooling_2d(hs[-1], 1, stride=2, cover_all=False))
        return hs
