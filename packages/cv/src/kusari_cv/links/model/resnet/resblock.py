"""Bottleneck residual units and stacks of them."""

from __future__ import annotations

from typing import Any

import kusari
import kusari.functions as F
from kusari_cv.links.connection import Conv2DBNActiv, SEBlock
from kusari_cv.links.model.pickable_sequential_chain import PickableSequentialChain


class ResBlock(PickableSequentialChain):
    """A stage of a ResNet: ``n_layer`` bottlenecks in sequence.

    The first bottleneck (``a``) changes the channels and the resolution and
    has a projection shortcut; the others (``b1``, ``b2``, ...) keep them.

    Args:
        n_layer: Number of bottlenecks.
        in_channels: Input channels (None to infer).
        mid_channels: Channels inside each bottleneck.
        out_channels: Output channels.
        stride: Stride of the first bottleneck.
        dilate: Dilation of every bottleneck's 3x3 convolution.
        groups: Groups of every 3x3 convolution (ResNeXt).
        initialW: Initializer of the convolution kernels.
        bn_kwargs: Keyword arguments of the batch normalizations.
        stride_first: Put the stride in the first 1x1 convolution (the
            original "he" ResNet) instead of the 3x3 one ("fb").
        add_seblock: Add a squeeze-and-excitation block to each bottleneck.
    """

    def __init__(
        self,
        n_layer: int,
        in_channels: int | None,
        mid_channels: int,
        out_channels: int,
        stride: Any,
        dilate: Any = 1,
        groups: int = 1,
        initialW: Any = None,
        bn_kwargs: dict[str, Any] | None = None,
        stride_first: bool = False,
        add_seblock: bool = False,
    ) -> None:
        super().__init__()
        common = {
            "dilate": dilate,
            "groups": groups,
            "initialW": initialW,
            "bn_kwargs": bn_kwargs,
            "add_seblock": add_seblock,
        }
        with self.init_scope():
            self.a = Bottleneck(
                in_channels,
                mid_channels,
                out_channels,
                stride,
                residual_conv=True,
                stride_first=stride_first,
                **common,
            )
            for i in range(1, n_layer):
                setattr(
                    self,
                    f"b{i}",
                    Bottleneck(out_channels, mid_channels, out_channels, 1, **common),
                )


class Bottleneck(kusari.Chain):
    """1x1, 3x3, 1x1 convolutions plus a shortcut, then ReLU.

    Args:
        in_channels: Input channels (None to infer).
        mid_channels: Channels of the 3x3 convolution.
        out_channels: Output channels.
        stride: Stride of the unit.
        dilate: Dilation (and padding) of the 3x3 convolution.
        groups: Groups of the 3x3 convolution.
        initialW: Initializer of the kernels.
        bn_kwargs: Keyword arguments of the batch normalizations.
        residual_conv: Project the shortcut with a strided 1x1 convolution
            (needed when the shape changes).
        stride_first: Stride in ``conv1`` rather than ``conv2``.
        add_seblock: Gate the residual branch with an :class:`SEBlock`.
    """

    def __init__(
        self,
        in_channels: int | None,
        mid_channels: int,
        out_channels: int,
        stride: Any = 1,
        dilate: Any = 1,
        groups: int = 1,
        initialW: Any = None,
        bn_kwargs: dict[str, Any] | None = None,
        residual_conv: bool = False,
        stride_first: bool = False,
        add_seblock: bool = False,
    ) -> None:
        super().__init__()
        first_stride, second_stride = (stride, 1) if stride_first else (1, stride)
        bn = dict(bn_kwargs or {})
        with self.init_scope():
            self.conv1 = Conv2DBNActiv(
                in_channels,
                mid_channels,
                1,
                first_stride,
                0,
                nobias=True,
                initialW=initialW,
                bn_kwargs=bn,
            )
            self.conv2 = Conv2DBNActiv(
                mid_channels,
                mid_channels,
                3,
                second_stride,
                dilate,
                dilate,
                groups,
                nobias=True,
                initialW=initialW,
                bn_kwargs=bn,
            )
            self.conv3 = Conv2DBNActiv(
                mid_channels,
                out_channels,
                1,
                1,
                0,
                nobias=True,
                initialW=initialW,
                activ=None,
                bn_kwargs=bn,
            )
            if add_seblock:
                self.se = SEBlock(out_channels)
            if residual_conv:
                self.residual_conv = Conv2DBNActiv(
                    in_channels,
                    out_channels,
                    1,
                    stride,
                    0,
                    nobias=True,
                    initialW=initialW,
                    activ=None,
                    bn_kwargs=bn,
                )

    def forward(self, x: Any) -> Any:
        """The unit's output for ``x``."""
        h = self.conv3(self.conv2(self.conv1(x)))
        if hasattr(self, "se"):
            h = self.se(h)
        residual = self.residual_conv(x) if hasattr(self, "residual_conv") else x
        return F.relu(h + residual)
