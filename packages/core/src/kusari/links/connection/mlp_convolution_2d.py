"""Network-in-network convolution block (``MLPConvolution2D``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kusari import link
from kusari.functions.activation import relu as relu_module
from kusari.links.connection.convolution_2d import Convolution2D
from kusari.utils import argument

_NO_WSCALE = (
    "wscale is not supported anymore; use conv_init and bias_init to change "
    "the scale of the initial parameters"
)


class MLPConvolution2D(link.ChainList):
    """Two-dimensional MLP convolution layer of Network in Network.

    A ``ksize`` convolution followed by 1x1 convolutions, with ``activation``
    between them (not after the last one). The children are
    :class:`Convolution2D` links, indexed ``0, 1, ...``.

    Args:
        in_channels: Number of input channels; None for lazy initialization.
            ``MLPConvolution2D(out_channels, ksize)`` is the short form.
        out_channels: Output channels of each convolution (a non-empty
            sequence).
        ksize: Filter size of the first convolution.
        stride: Stride of the first convolution.
        pad: Padding of the first convolution.
        activation: Activation between the convolutions (ReLU by default).
        conv_init: Initializer of the filters (keyword only).
        bias_init: Initializer of the biases (keyword only).

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> mlp = L.MLPConvolution2D(3, (4, 5, 6), 3)
        >>> mlp(np.zeros((1, 3, 7, 7), np.float32)).shape, len(mlp)
        ((1, 6, 5, 5), 3)
    """

    def __init__(
        self,
        in_channels: Any,
        out_channels: Any,
        ksize: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        activation: Callable[[Any], Any] = relu_module.relu,
        *args: Any,
        conv_init: Any = None,
        bias_init: Any = None,
        **kwargs: Any,
    ) -> None:
        # Chainer v1 took `wscale` after `activation`; v7 (and kusari) take
        # the initializers by keyword only and refuse `wscale` by name.
        if args:
            raise TypeError(
                f"MLPConvolution2D: takes at most 6 positional arguments; {_NO_WSCALE}"
            )
        argument.check_unexpected_kwargs(kwargs, wscale=_NO_WSCALE)
        if kwargs:
            names = ", ".join(sorted(kwargs))
            raise TypeError(f"MLPConvolution2D: unexpected keyword argument(s) {names}")
        if ksize is None:
            out_channels, ksize, in_channels = in_channels, out_channels, None
        if not isinstance(out_channels, Sequence):
            # Chainer failed on len() here: a TypeError as well.
            raise TypeError(
                "MLPConvolution2D: out_channels must be a sequence of ints, got "
                f"{type(out_channels).__name__} {out_channels!r}"
            )
        if len(out_channels) == 0:
            raise ValueError("MLPConvolution2D: out_channels must not be empty")
        convs = [
            Convolution2D(
                in_channels,
                out_channels[0],
                ksize,
                stride,
                pad,
                initialW=conv_init,
                initial_bias=bias_init,
            )
        ]
        for n_in, n_out in zip(out_channels, out_channels[1:]):
            convs.append(
                Convolution2D(
                    n_in, n_out, 1, initialW=conv_init, initial_bias=bias_init
                )
            )
        super().__init__(*convs)
        self.activation = activation

    def forward(self, x: Any) -> Any:
        f = self.activation
        layers = list(self)
        for layer in layers[:-1]:
            x = f(layer(x))
        return layers[-1](x)
