"""Atrous spatial pyramid pooling with separable convolutions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import kusari
import kusari.functions as F
from kusari_cv.links.connection import Conv2DBNActiv, SeparableConv2DBNActiv


class SeparableASPP(kusari.Chain):
    """ASPP: five parallel branches, concatenated and projected.

    The branches are image-level pooling (global average, 1x1 conv,
    broadcast back), a 1x1 convolution and three dilated separable 3x3
    convolutions; a 1x1 convolution and dropout follow the concatenation.

    Args:
        in_channels: Input channels.
        out_channels: Channels of each branch and of the output.
        dilate_list: Dilations of the three separable branches.
        bn_kwargs: Keyword arguments of the batch normalizations.
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        dilate_list: Sequence[int] = (12, 24, 36),
        bn_kwargs: dict[str, Any] | None = None,
    ) -> None:
        if len(dilate_list) != 3:
            raise ValueError(
                f"SeparableASPP: dilate_list must have 3 entries, got {dilate_list}"
            )
        super().__init__()
        bn = dict(bn_kwargs or {})
        with self.init_scope():
            self.image_pooling_conv = Conv2DBNActiv(
                in_channels, out_channels, 1, bn_kwargs=bn
            )
            self.conv1x1 = Conv2DBNActiv(in_channels, out_channels, 1, bn_kwargs=bn)
            for i, d in enumerate(dilate_list, 1):
                branch = SeparableConv2DBNActiv(
                    in_channels,
                    out_channels,
                    3,
                    1,
                    d,
                    d,
                    nobias=True,
                    dw_activ=F.relu,
                    pw_activ=F.relu,
                    bn_kwargs=bn,
                )
                setattr(self, f"atrous{i}", branch)
            self.proj = Conv2DBNActiv(out_channels * 5, out_channels, 1, bn_kwargs=bn)

    def image_pooling(self, x: Any) -> Any:
        """Global context: average, project, and broadcast to ``x``'s size."""
        B, _, H, W = x.shape
        h = self.image_pooling_conv(F.average(x, axis=(2, 3), keepdims=True))
        return F.broadcast_to(h, (B, h.shape[1], H, W))

    def forward(self, x: Any) -> Any:
        """The projected concatenation of the five branches."""
        h = F.concat(
            (
                self.image_pooling(x),
                self.conv1x1(x),
                self["atrous1"](x),
                self["atrous2"](x),
                self["atrous3"](x),
            ),
            axis=1,
        )
        return F.dropout(self.proj(h))
