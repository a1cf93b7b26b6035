"""``im2col``: extract convolution patches into the channel axis."""

from __future__ import annotations

from typing import Any

from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.utils.conv import col2im_array, im2col_array
from kusari.variable import Variable


def _pair(x: Any, name: str) -> tuple[int, int]:
    if isinstance(x, (tuple, list)):
        if len(x) != 2:
            raise ValueError(f"im2col: {name} must be an int or a pair, got {x!r}")
        return int(x[0]), int(x[1])
    return int(x), int(x)


class Im2Col(FunctionNode):
    """Patches as channels: ``(n, c, h, w)`` to ``(n, c*kh*kw, out_h, out_w)``."""

    def __init__(
        self, ksize: Any, stride: Any, pad: Any, cover_all: bool, dilate: Any
    ) -> None:
        self.kh, self.kw = _pair(ksize, "ksize")
        self.sy, self.sx = _pair(stride, "stride")
        self.ph, self.pw = _pair(pad, "pad")
        self.dy, self.dx = _pair(dilate, "dilate")
        if (
            min(self.kh, self.kw, self.sy, self.sx, self.dy, self.dx) < 1
            or min(self.ph, self.pw) < 0
        ):
            raise ValueError(
                "im2col: ksize, stride and dilate must be positive and pad non-negative"
            )
        self.cover_all = cover_all

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x = in_types[0]
        type_check.expect(x.dtype.kind == "f", x.ndim == 4)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self._in_hw = x.shape[2:]
        col = im2col_array(
            x,
            self.kh,
            self.kw,
            self.sy,
            self.sx,
            self.ph,
            self.pw,
            self.cover_all,
            self.dy,
            self.dx,
        )
        n, c, kh, kw, oh, ow = col.shape
        return (col.reshape(n, c * kh * kw, oh, ow),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return Im2ColGrad(self, self._in_hw).apply(grad_outputs)


class Im2ColGrad(FunctionNode):
    """Sum patch gradients back into the image (col2im)."""

    def __init__(self, fwd: Im2Col, in_hw: tuple[int, int]) -> None:
        self.fwd = fwd
        self.in_hw = in_hw

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (gy,) = inputs
        f = self.fwd
        n, ckk, oh, ow = gy.shape
        col = gy.reshape(n, ckk // (f.kh * f.kw), f.kh, f.kw, oh, ow)
        h, w = self.in_hw
        return (col2im_array(col, f.sy, f.sx, f.ph, f.pw, h, w, f.dy, f.dx),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        f = self.fwd
        return Im2Col(
            (f.kh, f.kw), (f.sy, f.sx), (f.ph, f.pw), f.cover_all, (f.dy, f.dx)
        ).apply(grad_outputs)


def im2col(
    x: Any,
    ksize: Any,
    stride: Any = 1,
    pad: Any = 0,
    cover_all: bool = False,
    dilate: Any = 1,
) -> Variable:
    """Extract patches of an image batch into the channel axis.

    Args:
        x: Variable of shape ``(n, c, h, w)``.
        ksize: Patch size (int or ``(kh, kw)``).
        stride: Stride (int or pair).
        pad: Zero padding (int or pair).
        cover_all: Use the output size that covers every input pixel.
        dilate: Dilation (int or pair).

    Returns:
        Variable of shape ``(n, c * kh * kw, out_h, out_w)``; channel
        ``(ci * kh + i) * kw + j`` holds offset ``(i, j)`` of channel ``ci``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.im2col(np.zeros((1, 2, 4, 4), np.float32), 3, pad=1).shape
        (1, 18, 4, 4)
    """
    return Im2Col(ksize, stride, pad, cover_all, dilate).apply((x,))[0]
