"""The GoogLeNet Inception module (``Inception``)."""

from __future__ import annotations

from typing import Any

from kusari import link
from kusari.functions.activation import relu as relu_module
from kusari.functions.array import concat as concat_module
from kusari.functions.pooling import max_pooling_2d as max_pool_module
from kusari.links.connection import convolution_2d


class Inception(link.Chain):
    """Inception module of GoogLeNet (Szegedy et al., 2014).

    Four branches concatenated along channels: a 1x1 convolution, a 1x1 then
    3x3 convolution, a 1x1 then 5x5 convolution, and a 3x3 max pooling then
    1x1 convolution; the result goes through ReLU.

    Args:
        in_channels: Number of input channels.
        out1: Output channels of the 1x1 branch.
        proj3: Channels of the 1x1 projection before the 3x3 convolution.
        out3: Output channels of the 3x3 branch.
        proj5: Channels of the 1x1 projection before the 5x5 convolution.
        out5: Output channels of the 5x5 branch.
        proj_pool: Output channels of the pooling branch's 1x1 convolution.
        conv_init: Initializer of the convolution filters.
        bias_init: Initializer of the convolution biases.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> inc = L.Inception(3, 2, 2, 3, 2, 4, 5)
        >>> inc(np.zeros((1, 3, 6, 6), np.float32)).shape
        (1, 14, 6, 6)
    """

    def __init__(
        self,
        in_channels: int | None,
        out1: int,
        proj3: int,
        out3: int,
        proj5: int,
        out5: int,
        proj_pool: int,
        conv_init: Any = None,
        bias_init: Any = None,
    ) -> None:
        super().__init__()
        conv = convolution_2d.Convolution2D
        kw = {"initialW": conv_init, "initial_bias": bias_init}
        with self.init_scope():
            self.conv1 = conv(in_channels, out1, 1, **kw)
            self.proj3 = conv(in_channels, proj3, 1, **kw)
            self.conv3 = conv(proj3, out3, 3, pad=1, **kw)
            self.proj5 = conv(in_channels, proj5, 1, **kw)
            self.conv5 = conv(proj5, out5, 5, pad=2, **kw)
            self.projp = conv(in_channels, proj_pool, 1, **kw)

    def forward(self, x: Any) -> Any:
        relu = relu_module.relu
        out1 = self.conv1(x)
        out3 = self.conv3(relu(self.proj3(x)))
        out5 = self.conv5(relu(self.proj5(x)))
        pool = self.projp(max_pool_module.max_pooling_2d(x, 3, stride=1, pad=1))
        return relu(concat_module.concat((out1, out3, out5, pool), axis=1))
