"""Depthwise-separable convolution with batch normalization."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import kusari
import kusari.functions as F
import kusari.links as L
from kusari_cv.links.connection._conv_block import batch_normalization_link


class SeparableConv2DBNActiv(kusari.Chain):
    """Depthwise conv, BN, activation, then pointwise conv, BN, activation.

    The depthwise convolution is a grouped convolution with one group per
    input channel; the pointwise one is 1x1. Child links: ``depthwise``,
    ``dw_bn``, ``pointwise``, ``pw_bn`` (ChainerCV's names).

    Args:
        in_channels: Input channels.
        out_channels: Output channels.
        ksize: Kernel size of the depthwise convolution.
        stride: Its stride.
        pad: Its zero padding.
        dilate: Its dilation factor.
        nobias: Leave out the biases of both convolutions.
        dw_initialW: Initializer of the depthwise kernel.
        pw_initialW: Initializer of the pointwise kernel.
        dw_initial_bias: Initializer of the depthwise bias.
        pw_initial_bias: Initializer of the pointwise bias.
        dw_activ: Activation after the depthwise part (None: identity).
        pw_activ: Activation after the pointwise part (None: identity).
        bn_kwargs: Keyword arguments of both batch normalization links.

    Example:
        >>> import numpy as np
        >>> from kusari_cv.links import SeparableConv2DBNActiv
        >>> link = SeparableConv2DBNActiv(4, 6, 3, 1, 2, 2)
        >>> link(np.zeros((1, 4, 7, 7), np.float32)).shape
        (1, 6, 7, 7)
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        ksize: Any,
        stride: Any = 1,
        pad: Any = 0,
        dilate: Any = 1,
        nobias: bool = False,
        dw_initialW: Any = None,
        pw_initialW: Any = None,
        dw_initial_bias: Any = None,
        pw_initial_bias: Any = None,
        dw_activ: Callable[[Any], Any] | None = F.identity,
        pw_activ: Callable[[Any], Any] | None = F.relu,
        bn_kwargs: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        bn_kwargs = dict(bn_kwargs or {})
        self.dw_activ = F.identity if dw_activ is None else dw_activ
        self.pw_activ = F.identity if pw_activ is None else pw_activ
        with self.init_scope():
            self.depthwise = L.Convolution2D(
                in_channels,
                in_channels,
                ksize,
                stride,
                pad,
                nobias,
                dw_initialW,
                dw_initial_bias,
                dilate=dilate,
                groups=in_channels,
            )
            self.dw_bn = batch_normalization_link(in_channels, bn_kwargs)
            self.pointwise = L.Convolution2D(
                in_channels, out_channels, 1, 1, 0, nobias, pw_initialW, pw_initial_bias
            )
            self.pw_bn = batch_normalization_link(out_channels, bn_kwargs)

    def forward(self, x: Any) -> Any:
        """Applies the separable convolution to ``x``."""
        h = self.dw_activ(self.dw_bn(self.depthwise(x)))
        return self.pw_activ(self.pw_bn(self.pointwise(h)))
