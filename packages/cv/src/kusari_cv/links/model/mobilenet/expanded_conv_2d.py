"""MobileNetV2's inverted residual block."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import kusari
import kusari.functions as F
from kusari_cv.links.model.mobilenet.tf_conv_2d_bn_activ import TFConv2DBNActiv
from kusari_cv.links.model.mobilenet.util import expand_input_by_factor

_six_times_input = expand_input_by_factor(6)


class ExpandedConv2D(kusari.Chain):
    """An inverted residual block (Sandler et al. 2018).

    A 1x1 ``expand`` convolution widens the input to ``inner_size``
    channels (left out when that would not widen it), a ``depthwise``
    convolution filters each channel, and a 1x1 ``project`` convolution
    narrows the result to ``out_channels`` without an activation (the
    "linear bottleneck"). Expand and depthwise end in ReLU6; every
    convolution is followed by batch normalization. When the output has the
    input's shape, the input is added to it.

    Args:
        in_channels: Input channels.
        out_channels: Output channels.
        expansion_size: Channels inside the block, or a callable that gets
            ``num_inputs=in_channels`` and returns them (six times the input,
            rounded to a multiple of 8, by default).
        expand_pad: Padding of the expand convolution (``'SAME'``,
            ``'VALID'`` or explicit).
        depthwise_stride: Stride of the depthwise convolution.
        depthwise_ksize: Kernel size of the depthwise convolution.
        depthwise_pad: Padding of the depthwise convolution.
        project_pad: Padding of the project convolution.
        initialW: Initializer of the kernels.
        bn_kwargs: Keyword arguments of the batch normalization links.

    Example:
        >>> import numpy as np
        >>> block = ExpandedConv2D(8, 8)
        >>> block.inner_size
        48
        >>> block(np.zeros((1, 8, 5, 5), np.float32)).shape
        (1, 8, 5, 5)
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        expansion_size: int | Callable[..., int] = _six_times_input,
        expand_pad: Any = "SAME",
        depthwise_stride: Any = 1,
        depthwise_ksize: Any = 3,
        depthwise_pad: Any = "SAME",
        project_pad: Any = "SAME",
        initialW: Any = None,
        bn_kwargs: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        if callable(expansion_size):
            self.inner_size = int(expansion_size(num_inputs=in_channels))
        else:
            self.inner_size = int(expansion_size)
        bn_kwargs = dict(bn_kwargs or {})
        with self.init_scope():
            if self.inner_size > in_channels:
                self.expand = TFConv2DBNActiv(
                    in_channels,
                    self.inner_size,
                    ksize=1,
                    pad=expand_pad,
                    nobias=True,
                    initialW=initialW,
                    activ=F.relu6,
                    bn_kwargs=bn_kwargs,
                )
                depthwise_in_channels = self.inner_size
            else:
                depthwise_in_channels = in_channels
            self.depthwise = TFConv2DBNActiv(
                depthwise_in_channels,
                self.inner_size,
                ksize=depthwise_ksize,
                stride=depthwise_stride,
                pad=depthwise_pad,
                groups=depthwise_in_channels,
                nobias=True,
                initialW=initialW,
                activ=F.relu6,
                bn_kwargs=bn_kwargs,
            )
            self.project = TFConv2DBNActiv(
                self.inner_size,
                out_channels,
                ksize=1,
                pad=project_pad,
                nobias=True,
                initialW=initialW,
                activ=None,
                bn_kwargs=bn_kwargs,
            )

    def forward(self, x: Any) -> Any:
        """Expand, filter and project ``x``; add ``x`` where shapes agree."""
        h = self.expand(x) if hasattr(self, "expand") else x
        h = self.project(self.depthwise(h))
        if h.shape == x.shape:
            h = h + x
        return h
