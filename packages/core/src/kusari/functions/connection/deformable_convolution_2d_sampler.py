"""Deformable 2-d convolution with given offsets (Dai et al., 2017).

Composed of differentiable functions: the kernel taps are moved by the
offsets, sampled bilinearly with ``spatial_transformer_sampler`` (zero outside
the padded image), and contracted with the filter in one GEMM.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.functions.connection import _conv_core as core
from kusari.variable import Variable


def deformable_convolution_2d_sampler(
    x: Any, offset: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0
) -> Variable:
    """Two-dimensional deformable convolution with precomputed offsets.

    Args:
        x: Input of shape ``(n, c_I, h, w)``.
        offset: Offsets of shape ``(n, 2 k_H k_W, h_O, w_O)``; the first
            ``k_H k_W`` channels move the taps horizontally, the last
            ``k_H k_W`` vertically.
        W: Filter of shape ``(c_O, c_I, k_H, k_W)``.
        b: Optional bias of shape ``(c_O,)``.
        stride: Stride ``s`` or ``(s_Y, s_X)``.
        pad: Zero padding ``p`` or ``(p_H, p_W)``.

    Returns:
        Output of shape ``(n, c_O, h_O, w_O)`` with
        ``h_O = (h + 2 p_H - k_H) // s_Y + 1``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.ones((2, 3, 4, 7), np.float32)
        >>> offset = np.zeros((2, 2 * 3 * 3, 2, 5), np.float32)
        >>> W = np.ones((4, 3, 3, 3), np.float32)
        >>> F.deformable_convolution_2d_sampler(x, offset, W).array[0, 0]
        array([[27., 27., 27., 27., 27.],
               [27., 27., 27., 27., 27.]], dtype=float32)
    """
    from kusari.functions.array.broadcast import broadcast_to
    from kusari.functions.array.concat import concat
    from kusari.functions.array.pad import pad as pad_func
    from kusari.functions.array.reshape import reshape
    from kusari.functions.array.spatial_transformer_sampler import (
        spatial_transformer_sampler,
    )
    from kusari.functions.array.transpose import transpose
    from kusari.functions.math.matmul import matmul

    fname = "deformable_convolution_2d_sampler"
    sy, sx = core.as_tuple(stride, 2, fname, "stride")
    ph, pw = core.as_tuple(pad, 2, fname, "pad")
    out_c, _, kh, kw = W.shape
    n, c, h, w = x.shape
    _, khkw2, out_h, out_w = offset.shape
    if khkw2 != 2 * kh * kw:
        raise ValueError(
            f"{fname}: offset must have 2 * kh * kw = {2 * kh * kw} channels, "
            f"got {khkw2}"
        )
    if W.shape[1] != c:
        raise ValueError(f"{fname}: W.shape[1] ({W.shape[1]}) != x.shape[1] ({c})")
    xp = backend.get_array_module(offset)
    dtype = offset.dtype
    khkw = kh * kw
    # Regular grid of each tap in padded-image pixels: (1, khkw, out_h, out_w).
    ys = (numpy.arange(out_h) * sy)[None, None, :, None] + numpy.repeat(
        numpy.arange(kh), kw
    )[None, :, None, None]
    xs = (numpy.arange(out_w) * sx)[None, None, None, :] + numpy.tile(
        numpy.arange(kw), kh
    )[None, :, None, None]
    # Normalise to [-1, 1] over the padded image.
    sxn = 2.0 / (w + 2 * pw - 1)
    syn = 2.0 / (h + 2 * ph - 1)
    base_x = xp.asarray((xs * sxn - 1.0).astype(dtype))
    base_y = xp.asarray((ys * syn - 1.0).astype(dtype))
    shape = (n, khkw, out_h, out_w)
    gx = offset[:, :khkw] * sxn + broadcast_to(base_x, shape)
    gy = offset[:, khkw:] * syn + broadcast_to(base_y, shape)
    grid = reshape(concat([gx, gy], axis=1), (n, 2, khkw, out_h * out_w))
    x_pad = x
    if ph or pw:
        x_pad = pad_func(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), "constant")
    x_st = spatial_transformer_sampler(x_pad, grid)  # (n, c, khkw, out_h*out_w)
    cols = reshape(transpose(x_st, (0, 3, 1, 2)), (n * out_h * out_w, c * khkw))
    Wm = reshape(transpose(W, (1, 2, 3, 0)), (c * khkw, out_c))
    y = matmul(cols, Wm)
    y = transpose(reshape(y, (n, out_h, out_w, out_c)), (0, 3, 1, 2))
    if b is not None:
        y = y + broadcast_to(reshape(b, (1, out_c, 1, 1)), y.shape)
    return y
