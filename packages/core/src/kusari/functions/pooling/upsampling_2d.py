"""``upsampling_2d``: put values back at the argmax positions of a max pooling."""

from __future__ import annotations

from typing import Any

from kusari import utils
from kusari.functions.pooling import _pool_core as core
from kusari.functions.pooling.max_pooling_nd import IndexScatter
from kusari.variable import Variable


def upsampling_2d(
    x: Any,
    indexes: Any,
    ksize: Any,
    stride: Any = None,
    pad: Any = 0,
    outsize: Any = None,
    cover_all: bool = True,
) -> Variable:
    """Upsampling with the indexes returned by ``max_pooling_2d(return_indices=True)``.

    Each value of ``x`` is written (added, where windows overlap) at the
    argmax position of its window; everything else is zero.

    Args:
        x: Input of shape ``(n, c, h, w)``.
        indexes: int array of ``x``'s shape (flattened in-window positions).
        ksize: Window size of the pooling.
        stride: Stride; ``ksize`` if None.
        pad: Padding of the pooling.
        outsize: ``(h_O, w_O)``; inferred if None.
        cover_all: The pooling's ``cover_all``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x0 = np.arange(16.0, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> y, idx = F.max_pooling_2d(x0, 2, return_indices=True)
        >>> F.upsampling_2d(y, idx, 2, outsize=(4, 4)).array[0, 0]
        array([[ 0.,  0.,  0.,  0.],
               [ 0.,  5.,  0.,  7.],
               [ 0.,  0.,  0.,  0.],
               [ 0., 13.,  0., 15.]], dtype=float32)
    """
    if len(x.shape) != 4:
        raise ValueError(
            f"upsampling_2d: x must be 4-dimensional, got shape {tuple(x.shape)}"
        )
    idx = indexes.array if hasattr(indexes, "array") else indexes
    if tuple(idx.shape) != tuple(x.shape):
        raise ValueError(
            f"upsampling_2d: indexes must have x's shape {tuple(x.shape)}, "
            f"got {tuple(idx.shape)}"
        )
    pp = core.PoolParams(2, ksize, stride, pad, cover_all, "upsampling_2d")
    insz = tuple(x.shape[2:])
    if outsize is None:
        out = tuple(
            utils.get_deconv_outsize(n, k, s, p, cover_all=cover_all)
            for n, k, s, p in zip(insz, pp.k, pp.s, pp.p)
        )
    else:
        out = core.as_tuple(outsize, 2, "upsampling_2d", "outsize")
    return IndexScatter(pp, idx, out, "Upsampling2D").apply((x,))[0]
