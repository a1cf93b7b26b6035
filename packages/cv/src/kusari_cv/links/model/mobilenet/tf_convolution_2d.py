"""Convolution with TensorFlow's ``'SAME'`` and ``'VALID'`` padding."""

from __future__ import annotations

from typing import Any

import kusari
import kusari.functions as F
import kusari.links as L

_TF_PADDINGS = ("SAME", "VALID")


def _pair(value: Any) -> tuple[int, int]:
    if isinstance(value, (tuple, list)):
        return int(value[0]), int(value[1])
    return int(value), int(value)


def tf_pad_amount(
    in_size: int, ksize: int, stride: int, mode: str, dilate: int = 1
) -> tuple[int, int]:
    """Zero padding ``(before, after)`` that TensorFlow adds along one axis.

    ``'SAME'`` pads so that the output has ``ceil(in_size / stride)``
    elements, putting the odd element (if any) after; ``'VALID'`` does not
    pad.

    Example:
        >>> tf_pad_amount(8, 3, 2, 'SAME')
        (0, 1)
        >>> tf_pad_amount(7, 3, 2, 'SAME')
        (1, 1)
    """
    if mode == "VALID":
        return 0, 0
    if mode != "SAME":
        raise ValueError(f"tf_pad_amount: mode must be 'SAME' or 'VALID', got {mode!r}")
    extent = (ksize - 1) * dilate + 1
    out_size = -(-in_size // stride)
    total = max((out_size - 1) * stride + extent - in_size, 0)
    return total // 2, total - total // 2


class TFConvolution2D(kusari.Chain):
    """A :class:`~kusari.links.Convolution2D` that pads as TensorFlow does.

    ``pad`` may be ``'SAME'`` or ``'VALID'`` (``tf.nn.conv2d``'s padding) or
    an explicit padding, in which case this is a plain convolution. Weights
    converted from TensorFlow need this: ``'SAME'`` pads asymmetrically
    (one more row/column after) where the total padding is odd, which a
    symmetric ``pad`` cannot express. The convolution is the child link
    ``conv`` (ChainerCV's name, so its weight files load); :attr:`W` and
    :attr:`b` are its parameters.

    Args:
        in_channels: Input channels, or None to infer them.
        out_channels: Output channels.
        ksize: Kernel size.
        stride: Stride.
        pad: ``'SAME'``, ``'VALID'`` or an explicit (symmetric) padding.
        nobias: Leave out the bias.
        initialW: Initializer of the kernel.
        initial_bias: Initializer of the bias.
        dilate: Dilation factor.
        groups: Number of channel groups.

    Example:
        >>> import numpy as np
        >>> conv = TFConvolution2D(3, 4, 3, stride=2)
        >>> conv(np.zeros((1, 3, 7, 8), np.float32)).shape
        (1, 4, 4, 4)
    """

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        ksize: Any,
        stride: Any = 1,
        pad: Any = "SAME",
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
        dilate: Any = 1,
        groups: int = 1,
    ) -> None:
        super().__init__()
        if isinstance(pad, str):
            if pad not in _TF_PADDINGS:
                raise ValueError(
                    f"TFConvolution2D: pad must be 'SAME', 'VALID' or an int "
                    f"(pair), got {pad!r}"
                )
            self.tf_padding: str | None = pad
            conv_pad: Any = 0
        else:
            self.tf_padding = None
            conv_pad = pad
        with self.init_scope():
            self.conv = L.Convolution2D(
                in_channels,
                out_channels,
                ksize,
                stride,
                conv_pad,
                nobias,
                initialW,
                initial_bias,
                dilate=dilate,
                groups=groups,
            )

    @property
    def W(self) -> kusari.Parameter:
        """The convolution kernel."""
        return self.conv.W

    @property
    def b(self) -> kusari.Parameter | None:
        """The convolution bias (None with ``nobias``)."""
        return self.conv.b

    def forward(self, x: Any) -> Any:
        """Pad ``x`` (if TensorFlow would) and convolve it."""
        if self.tf_padding == "SAME":
            conv = self.conv
            kh, kw = _pair(conv.ksize)
            (sh, sw), (dh, dw) = conv.stride, conv.dilate
            top, bottom = tf_pad_amount(x.shape[2], kh, sh, "SAME", dh)
            left, right = tf_pad_amount(x.shape[3], kw, sw, "SAME", dw)
            if top or bottom or left or right:
                x = F.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)), "constant")
        return self.conv(x)
