"""N-dimensional convolution helpers under Chainer's names (``chainer.utils.conv_nd``).

``im2col_nd_cpu`` lays out the patches of an ``(n, c, d_1, ..., d_N)`` image
as ``(n, c, k_1, ..., k_N, out_1, ..., out_N)``; ``col2im_nd_cpu`` sums them
back (its adjoint). The ``_gpu`` forms are the same code on CuPy arrays.
Mismatched parameter lengths fail an ``assert``, as in Chainer.

Example:
    >>> import numpy as np
    >>> from kusari.utils import conv_nd
    >>> img = np.arange(8, dtype=np.float32).reshape(1, 1, 8)
    >>> conv_nd.im2col_nd_cpu(img, (2,), (2,), (0,)).shape
    (1, 1, 2, 4)
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.utils import get_conv_outsize

__all__ = [
    "as_tuple",
    "col2im_nd",
    "col2im_nd_cpu",
    "col2im_nd_gpu",
    "get_conv_outsize",
    "im2col_nd",
    "im2col_nd_cpu",
    "im2col_nd_gpu",
]


def as_tuple(x: Any, n: int) -> tuple[Any, ...]:
    """``x`` as an ``n``-tuple: a scalar is repeated, a sequence must have ``n``."""
    if hasattr(x, "__getitem__"):
        assert len(x) == n, f"as_tuple: expected {n} values, got {len(x)}"
        return tuple(x)
    return (x,) * n


def im2col_nd_cpu(
    img: Any,
    ksize: Any,
    stride: Any,
    pad: Any,
    pval: float = 0,
    cover_all: bool = False,
    dilate: Any = 1,
) -> Any:
    """Patches of ``img`` as ``(n, c, *ksize, *out_sizes)``.

    Args:
        img: Array ``(n, c, d_1, ..., d_N)``.
        ksize: Kernel size per spatial axis (N values).
        stride: Stride per spatial axis.
        pad: Padding per spatial axis (filled with ``pval``).
        pval: Value of the padding.
        cover_all: Whether to cover every input element (extra windows).
        dilate: Dilation, a scalar or N values.
    """
    xp = backend.get_array_module(img)
    n, c = img.shape[:2]
    dims = img.shape[2:]
    ndim = len(dims)
    assert ndim == len(ksize) == len(stride) == len(pad)
    dil = as_tuple(dilate, ndim)
    outs = tuple(
        get_conv_outsize(d, k, s, p, cover_all, di)
        for d, k, s, p, di in zip(dims, ksize, stride, pad, dil, strict=True)
    )
    assert all(out > 0 for out in outs), "Output sizes should be positive."
    # Pad the far side enough for every strided window (cover_all reads past
    # the normal padding).
    widths = [(0, 0), (0, 0)] + [
        (p, max(p, s * (o - 1) + di * (k - 1) - d - p + 1))
        for d, k, s, p, di, o in zip(dims, ksize, stride, pad, dil, outs, strict=True)
    ]
    padded = xp.pad(img, widths, constant_values=pval)
    st = padded.strides
    view = xp.lib.stride_tricks.as_strided(
        padded,
        (n, c) + tuple(ksize) + outs,
        st[:2]
        + tuple(st[2 + i] * dil[i] for i in range(ndim))
        + tuple(st[2 + i] * stride[i] for i in range(ndim)),
    )
    return xp.ascontiguousarray(view)


def col2im_nd_cpu(col: Any, stride: Any, pad: Any, dims: Any, dilate: Any = 1) -> Any:
    """Sum patches ``(n, c, *ksize, *out_sizes)`` back into ``(n, c, *dims)``.

    Args:
        col: The patches, as :func:`im2col_nd_cpu` lays them out.
        stride: Stride per spatial axis.
        pad: Padding per spatial axis.
        dims: Spatial shape of the image.
        dilate: Dilation, a scalar or N values.
    """
    xp = backend.get_array_module(col)
    n, c = col.shape[:2]
    mid = (col.ndim - 2) // 2
    ksize = col.shape[2 : 2 + mid]
    outs = col.shape[2 + mid :]
    ndim = len(dims)
    assert len(ksize) == len(stride) == len(pad) == len(dims) == ndim == len(outs)
    dil = as_tuple(dilate, ndim)
    full = tuple(
        max(d + 2 * p, s * (o - 1) + di * (k - 1) + 1)
        for d, k, s, p, di, o in zip(dims, ksize, stride, pad, dil, outs, strict=True)
    )
    # Flat index, in the padded image, of every (kernel offset, output) pair.
    index = xp.zeros((1,) * (2 * ndim), dtype=numpy.int64)
    for i in range(ndim):
        shape_k = [1] * (2 * ndim)
        shape_k[i] = ksize[i]
        shape_o = [1] * (2 * ndim)
        shape_o[ndim + i] = outs[i]
        pos = (xp.arange(ksize[i]) * dil[i]).reshape(shape_k) + (
            xp.arange(outs[i]) * stride[i]
        ).reshape(shape_o)
        index = index * full[i] + pos
    size = int(numpy.prod(full))
    index = index[None] + (xp.arange(n * c) * size).reshape((-1,) + (1,) * (2 * ndim))
    flat = xp.bincount(
        index.ravel(),
        weights=col.reshape(n * c, -1).ravel().astype(numpy.float64),
        minlength=n * c * size,
    ).astype(col.dtype, copy=False)
    img = flat.reshape((n, c) + full)
    return img[
        (slice(None), slice(None))
        + tuple(slice(p, p + d) for p, d in zip(pad, dims, strict=True))
    ]


def im2col_nd(
    img: Any,
    ksize: Any,
    stride: Any,
    pad: Any,
    cover_all: bool = False,
    dilate: Any = 1,
) -> Any:
    """:func:`im2col_nd_cpu` with zero padding, for any array module."""
    return im2col_nd_cpu(img, ksize, stride, pad, 0, cover_all, dilate)


# The array-module-agnostic code above runs on CuPy arrays as it is.
im2col_nd_gpu = im2col_nd
col2im_nd = col2im_nd_cpu
col2im_nd_gpu = col2im_nd_cpu
