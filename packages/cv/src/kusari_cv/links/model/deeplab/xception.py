"""Xception-65, the backbone of DeepLab v3+ (TensorFlow DeepLab's variant)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import kusari
import kusari.functions as F
from kusari_cv.links.connection import Conv2DBNActiv, SeparableConv2DBNActiv

Activation = Callable[[Any], Any] | None


class XceptionBlock(kusari.Chain):
    """Three separable convolutions with a skip connection.

    Returns both the block's output and the second separable convolution's
    output before its activation (DeepLab's decoder uses the latter).

    Args:
        in_channels: Input channels.
        depthlist: Output channels of the three separable convolutions.
        stride: Stride of the third one (and of the skip projection).
        dilate: Dilation (and padding) of all three.
        skip_type: ``'conv'`` (1x1 projection), ``'sum'`` (identity) or
            ``'none'``.
        activ_first: Apply ReLU to the input first (pre-activation) rather
            than to the output.
        bn_kwargs: Keyword arguments of the batch normalizations.
        dw_activ_list: Depthwise activations of the three convolutions.
        pw_activ_list: Pointwise activations of the three convolutions.
    """

    def __init__(
        self,
        in_channels: int,
        depthlist: Sequence[int],
        stride: int = 1,
        dilate: int = 1,
        skip_type: str = "conv",
        activ_first: bool = True,
        bn_kwargs: dict[str, Any] | None = None,
        dw_activ_list: Sequence[Activation] = (None, None, None),
        pw_activ_list: Sequence[Activation] = (F.relu, F.relu, None),
    ) -> None:
        if skip_type not in ("conv", "sum", "none"):
            raise ValueError(
                f"XceptionBlock: skip_type must be 'conv', 'sum' or 'none', "
                f"got {skip_type!r}"
            )
        if len(depthlist) != 3:
            raise ValueError(
                f"XceptionBlock: depthlist must have 3 entries, got {list(depthlist)}"
            )
        super().__init__()
        self.skip_type = skip_type
        self.activ_first = activ_first
        second_activ = pw_activ_list[1]
        self.separable2_activ = F.identity if second_activ is None else second_activ
        bn = dict(bn_kwargs or {})
        channels = (in_channels, *depthlist)
        with self.init_scope():
            for i in range(3):
                conv = SeparableConv2DBNActiv(
                    channels[i],
                    channels[i + 1],
                    3,
                    stride if i == 2 else 1,
                    dilate,
                    dilate,
                    nobias=True,
                    bn_kwargs=bn,
                    dw_activ=dw_activ_list[i],
                    # The second one's activation runs in forward, after its
                    # pre-activation output has been kept.
                    pw_activ=F.identity if i == 1 else pw_activ_list[i],
                )
                setattr(self, f"separable{i + 1}", conv)
            if skip_type == "conv":
                self.conv = Conv2DBNActiv(
                    in_channels,
                    depthlist[2],
                    1,
                    stride=stride,
                    nobias=True,
                    activ=F.identity,
                    bn_kwargs=bn,
                )

    def forward(self, x: Any) -> tuple[Any, Any]:
        """``(output, second separable convolution before activation)``."""
        h = F.relu(x) if self.activ_first else x
        h = self["separable1"](h)
        separable2 = self["separable2"](h)
        h = self["separable3"](self.separable2_activ(separable2))
        if self.skip_type == "conv":
            h = h + self.conv(x)
        elif self.skip_type == "sum":
            h = h + x
        if not self.activ_first:
            h = F.relu(h)
        return h, separable2


class Xception65(kusari.Chain):
    """Xception-65 as in TensorFlow's DeepLab, with output stride 8.

    Returns ``(lowlevel, highlevel)``: the pre-activation output of the
    second entry-flow block's second separable convolution (stride 4, 256
    channels) and the exit flow's output (stride 8: the last entry block does
    not stride and the later blocks dilate instead; 2048 channels).

    Args:
        bn_kwargs: Keyword arguments of the batch normalizations.

    Attributes:
        mean: Per-channel mean used to pad images in DeepLab's ``prepare``.
    """

    mean = np.array([127.5, 127.5, 127.5], dtype=np.float32)[:, np.newaxis, np.newaxis]

    def __init__(self, bn_kwargs: dict[str, Any] | None = None) -> None:
        super().__init__()
        bn = dict(bn_kwargs or {})
        with self.init_scope():
            self.entryflow_conv1 = Conv2DBNActiv(3, 32, 3, 2, 1, bn_kwargs=bn)
            self.entryflow_conv2 = Conv2DBNActiv(32, 64, 3, 1, 1, bn_kwargs=bn)
            self.entryflow_block1 = XceptionBlock(64, (128, 128, 128), 2, bn_kwargs=bn)
            self.entryflow_block2 = XceptionBlock(128, (256, 256, 256), 2, bn_kwargs=bn)
            self.entryflow_block3 = XceptionBlock(256, (728, 728, 728), 1, bn_kwargs=bn)
            for i in range(1, 17):
                block = XceptionBlock(
                    728, (728, 728, 728), 1, 2, skip_type="sum", bn_kwargs=bn
                )
                setattr(self, f"middleflow_block{i}", block)
            self.exitflow_block1 = XceptionBlock(
                728, (728, 1024, 1024), 1, 2, skip_type="conv", bn_kwargs=bn
            )
            self.exitflow_block2 = XceptionBlock(
                1024,
                (1536, 1536, 2048),
                1,
                4,
                skip_type="none",
                activ_first=False,
                bn_kwargs=bn,
                dw_activ_list=(F.relu, F.relu, F.relu),
                pw_activ_list=(F.relu, F.relu, F.relu),
            )

    def forward(self, x: Any) -> tuple[Any, Any]:
        """``(lowlevel, highlevel)`` features of images ``x``."""
        h = self.entryflow_conv2(self.entryflow_conv1(x))
        h, _ = self.entryflow_block1(h)
        h, lowlevel = self.entryflow_block2(h)
        h, _ = self.entryflow_block3(h)
        for i in range(1, 17):
            h, _ = self[f"middleflow_block{i}"](h)
        h, _ = self.exitflow_block1(h)
        highlevel, _ = self.exitflow_block2(h)
        return lowlevel, highlevel
