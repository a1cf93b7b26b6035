"""Locally connected 2-d layer ``local_convolution_2d`` (unshared filters).

Every output position has its own filter, so the product is a batched GEMM
over output positions: ``(L, N, K) @ (L, K, O)`` with the columns taken from
one strided view of ``x``.
"""

from __future__ import annotations

from typing import Any

from kusari.function_node import FunctionNode
from kusari.functions.connection import _conv_core as core
from kusari.utils import type_check
from kusari.variable import Variable


def _cols(x: Any, kh: int, kw: int, s: tuple[int, int], oh: int, ow: int) -> Any:
    """``(oh*ow, N, C*kh*kw)`` contiguous columns of ``x``."""
    v = core.window_view(x, (kh, kw), s, (1, 1), (oh, ow))  # N, C, kh, kw, oh, ow
    N, C = x.shape[:2]
    return v.transpose(4, 5, 0, 1, 2, 3).reshape(oh * ow, N, C * kh * kw)


def _w_mat(W: Any) -> Any:
    """``W (O, oh, ow, C, kh, kw)`` as ``(oh*ow, C*kh*kw, O)``."""
    O, oh, ow = W.shape[:3]
    return W.transpose(1, 2, 3, 4, 5, 0).reshape(oh * ow, -1, O)


def _forward(x: Any, W: Any, s: tuple[int, int]) -> Any:
    N = x.shape[0]
    O, oh, ow, C, kh, kw = W.shape
    # A W of another float dtype: the product is taken in the promoted dtype
    # and the result returned in x's, as Chainer v7 does.
    y = (_cols(x, kh, kw, s, oh, ow) @ _w_mat(W)).astype(x.dtype, copy=False)
    return y.transpose(1, 2, 0).reshape(N, O, oh, ow)


def _grad_x(W: Any, gy: Any, s: tuple[int, int], x_shape: tuple[int, ...]) -> Any:
    xp = core._xp(gy)
    N = gy.shape[0]
    O, oh, ow, C, kh, kw = W.shape
    gyt = gy.reshape(N, O, oh * ow).transpose(2, 0, 1)  # (L, N, O)
    gcol = (gyt @ _w_mat(W).swapaxes(1, 2)).astype(gy.dtype, copy=False)
    gcol = gcol.reshape(oh, ow, N, C, kh, kw)
    gcol = gcol.transpose(2, 3, 4, 5, 0, 1)  # N, C, kh, kw, oh, ow
    H = max(x_shape[2], (oh - 1) * s[0] + kh)
    Wd = max(x_shape[3], (ow - 1) * s[1] + kw)
    gx = xp.zeros((N, C, H, Wd), dtype=gy.dtype)
    core.col2im_add(gcol, gx, (kh, kw), s, (1, 1), (oh, ow))
    return gx[:, :, : x_shape[2], : x_shape[3]]


def _grad_w(x: Any, gy: Any, s: tuple[int, int], w_shape: tuple[int, ...]) -> Any:
    N = x.shape[0]
    O, oh, ow, C, kh, kw = w_shape
    gyt = gy.reshape(N, O, oh * ow).transpose(2, 0, 1)  # (L, N, O)
    gw = _cols(x, kh, kw, s, oh, ow).swapaxes(1, 2) @ gyt  # (L, K, O)
    return gw.reshape(oh, ow, C, kh, kw, O).transpose(5, 0, 1, 2, 3, 4)


class LocalConvolution2DFunction(FunctionNode):
    """``y[n, o, i, j] = sum W[o, i, j, c, p, q] x[n, c, s_y i + p, s_x j + q]``."""

    def __init__(self, stride: Any = 1) -> None:
        sy, sx = core.as_tuple(stride, 2, "local_convolution_2d", "stride")
        self.stride = (sy, sx)

    def check_type_forward(self, in_types: Any) -> None:
        n_in = len(in_types)
        type_check._argname(in_types, ("x", "W") if n_in == 2 else ("x", "W", "b"))
        x, w = in_types[0], in_types[1]
        type_check.expect(
            x.dtype.kind == "f",
            # As in Chainer v7, W may have another float dtype than x: the
            # product is computed in x's dtype, gW comes back in W's.
            w.dtype.kind == "f",
            x.ndim == 4,
            w.ndim == 6,
            x.shape[1] == w.shape[3],
        )
        xs = type_check.eval(x.shape)
        ws = type_check.eval(w.shape)
        oh = (xs[2] - ws[4]) // self.stride[0] + 1
        ow = (xs[3] - ws[5]) // self.stride[1] + 1
        if (oh, ow) != tuple(ws[1:3]):
            raise type_check.InvalidType(
                "W.shape[1:3] == output size", f"{tuple(ws[1:3])} != {(oh, ow)}"
            )
        if n_in == 3:
            b = in_types[2]
            type_check.expect(
                b.dtype == x.dtype,
                b.ndim == 3,
                b.shape[0] == w.shape[0],
                b.shape[1] == w.shape[1],
                b.shape[2] == w.shape[2],
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, W = inputs[0], inputs[1]
        y = _forward(x, W, self.stride)
        if len(inputs) == 3:
            y = y + inputs[2]
        return (y,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.math.sum import sum as _sum

        x, W = self.get_retained_inputs()
        (gy,) = grad_outputs
        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                ret.append(_LocalGradX(self.stride, tuple(x.shape)).apply((W, gy))[0])
            elif i == 1:
                node = _LocalGradW(self.stride, tuple(W.shape), W.dtype)
                ret.append(node.apply((x, gy))[0])
            else:
                ret.append(_sum(gy, axis=0))
        return tuple(ret)


class _LocalGradX(FunctionNode):
    def __init__(self, stride: tuple[int, int], x_shape: tuple[int, ...]) -> None:
        self.stride = stride
        self.x_shape = x_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        W, gy = inputs
        return (_grad_x(W, gy, self.stride, self.x_shape),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        W, gy = self.get_retained_inputs()
        (ggx,) = grad_outputs
        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                node = _LocalGradW(self.stride, tuple(W.shape), W.dtype)
                ret.append(node.apply((ggx, gy))[0])
            else:
                ret.append(LocalConvolution2DFunction(self.stride).apply((ggx, W))[0])
        return tuple(ret)


class _LocalGradW(FunctionNode):
    def __init__(
        self, stride: tuple[int, int], w_shape: tuple[int, ...], w_dtype: Any
    ) -> None:
        self.stride = stride
        self.w_shape = w_shape
        self.w_dtype = w_dtype

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        gw = _grad_w(x, gy, self.stride, self.w_shape)
        return (gw.astype(self.w_dtype, copy=False),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x, gy = self.get_retained_inputs()
        (ggW,) = grad_outputs
        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                ret.append(_LocalGradX(self.stride, tuple(x.shape)).apply((ggW, gy))[0])
            else:
                ret.append(LocalConvolution2DFunction(self.stride).apply((x, ggW))[0])
        return tuple(ret)


def local_convolution_2d(x: Any, W: Any, b: Any = None, stride: Any = 1) -> Variable:
    """Two-dimensional locally connected convolution (no weight sharing).

    Args:
        x: Input of shape ``(n, c_I, h, w)``.
        W: Weights of shape ``(c_O, h_O, w_O, c_I, k_H, k_W)`` with
            ``h_O = (h - k_H) // s_Y + 1`` (no padding).
        b: Optional bias of shape ``(c_O, h_O, w_O)``.
        stride: Stride ``s`` or ``(s_Y, s_X)``.

    Returns:
        Output of shape ``(n, c_O, h_O, w_O)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.ones((1, 2, 3, 3), np.float32)
        >>> W = np.ones((4, 2, 2, 2, 2, 2), np.float32)
        >>> F.local_convolution_2d(x, W).array[0, :, 0, 0]
        array([8., 8., 8., 8.], dtype=float32)
    """
    node = LocalConvolution2DFunction(stride)
    return node.apply((x, W) if b is None else (x, W, b))[0]
