"""The Inception module with batch normalization (``InceptionBN``)."""

from __future__ import annotations

from typing import Any

import kusari
from kusari import link
from kusari.functions.activation import relu as relu_module
from kusari.functions.array import concat as concat_module
from kusari.functions.pooling import average_pooling_2d as avg_pool_module
from kusari.functions.pooling import max_pooling_2d as max_pool_module
from kusari.links.connection.convolution_2d import Convolution2D
from kusari.links.normalization.batch_normalization import BatchNormalization


class InceptionBNArchitectureError(ValueError, AssertionError):
    """A 1x1 branch was asked for with ``stride != 1`` or without ``proj_pool``.

    A ``ValueError``, and also an ``AssertionError`` because Chainer checked
    this with ``assert`` and code written for it catches that.
    """


class InceptionBN(link.Chain):
    """Inception module with batch normalization (Ioffe & Szegedy, 2015).

    Branches: an optional 1x1 convolution (``out1 > 0``), a 1x1 then 3x3
    convolution, a 1x1 then two 3x3 convolutions, and a pooling branch
    (``'max'`` or ``'avg'``) with an optional 1x1 projection; every
    convolution is followed by batch normalization and ReLU. The outputs are
    concatenated along channels.

    Args:
        in_channels: Number of input channels.
        out1: Output channels of the 1x1 branch (0 leaves it out).
        proj3: Channels of the projection before the 3x3 convolution.
        out3: Output channels of the 3x3 branch.
        proj33: Channels of the projection before the double 3x3 branch.
        out33: Output channels of the double 3x3 branch.
        pooltype: ``'max'`` or ``'avg'``.
        proj_pool: Output channels of the pooling projection (None: no
            projection).
        stride: Stride of the last convolutions and the pooling.
        conv_init: Initializer of the convolution filters.
        dtype: Dtype of the batch normalization parameters.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> inc = L.InceptionBN(3, 2, 2, 3, 2, 4, 'avg', proj_pool=2)
        >>> inc(np.zeros((2, 3, 5, 5), np.float32)).shape
        (2, 11, 5, 5)
    """

    def __init__(
        self,
        in_channels: int | None,
        out1: int,
        proj3: int,
        out3: int,
        proj33: int,
        out33: int,
        pooltype: str,
        proj_pool: int | None = None,
        stride: int = 1,
        conv_init: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if pooltype not in ("max", "avg"):
            raise NotImplementedError(
                f"InceptionBN: pooltype must be 'max' or 'avg', got {pooltype!r}"
            )
        if out1 > 0 and (stride != 1 or proj_pool is None):
            raise InceptionBNArchitectureError(
                "InceptionBN: a 1x1 branch (out1 > 0) needs stride=1 and a proj_pool, "
                f"got stride={stride}, proj_pool={proj_pool}"
            )
        self.out1 = out1
        self.proj_pool = proj_pool
        self.stride = stride
        self.pooltype = pooltype
        dtype = kusari.get_dtype(dtype)
        conv, bn = Convolution2D, BatchNormalization
        with self.init_scope():
            self.proj3 = conv(in_channels, proj3, 1, nobias=True, initialW=conv_init)
            self.conv3 = conv(
                proj3, out3, 3, pad=1, stride=stride, nobias=True, initialW=conv_init
            )
            self.proj33 = conv(in_channels, proj33, 1, nobias=True, initialW=conv_init)
            self.conv33a = conv(
                proj33, out33, 3, pad=1, nobias=True, initialW=conv_init
            )
            self.conv33b = conv(
                out33, out33, 3, pad=1, stride=stride, nobias=True, initialW=conv_init
            )
            self.proj3n = bn(proj3, dtype=dtype)
            self.conv3n = bn(out3, dtype=dtype)
            self.proj33n = bn(proj33, dtype=dtype)
            self.conv33an = bn(out33, dtype=dtype)
            self.conv33bn = bn(out33, dtype=dtype)
            if out1 > 0:
                self.conv1 = conv(
                    in_channels, out1, 1, stride=stride, nobias=True, initialW=conv_init
                )
                self.conv1n = bn(out1, dtype=dtype)
            if proj_pool is not None:
                self.poolp = conv(
                    in_channels, proj_pool, 1, nobias=True, initialW=conv_init
                )
                self.poolpn = bn(proj_pool, dtype=dtype)

    def forward(self, x: Any) -> Any:
        relu = relu_module.relu
        outs = []
        if self.out1 > 0:
            outs.append(relu(self.conv1n(self.conv1(x))))
        h3 = relu(self.proj3n(self.proj3(x)))
        outs.append(relu(self.conv3n(self.conv3(h3))))
        h33 = relu(self.proj33n(self.proj33(x)))
        h33 = relu(self.conv33an(self.conv33a(h33)))
        outs.append(relu(self.conv33bn(self.conv33b(h33))))
        if self.pooltype == "max":
            p = max_pool_module.max_pooling_2d(
                x, 3, stride=self.stride, pad=1, cover_all=False
            )
        else:
            p = avg_pool_module.average_pooling_2d(x, 3, stride=self.stride, pad=1)
        if self.proj_pool is not None:
            p = relu(self.poolpn(self.poolp(p)))
        outs.append(p)
        return concat_module.concat(outs, axis=1)
