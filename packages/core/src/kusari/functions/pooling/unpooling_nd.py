"""Unpooling (``unpooling_nd``, ``unpooling_1d``, ``unpooling_3d``).

The adjoint of sum pooling: every input value is added over its window of the
output (one vectorised add per kernel offset); the gradient is sum pooling.
"""

from __future__ import annotations

from typing import Any

from kusari import utils
from kusari.functions.pooling import _pool_core as core
from kusari.functions.pooling.average_pooling_nd import SumUnpooling
from kusari.utils.type_check import InvalidType
from kusari.variable import Variable


class UnpoolingSizeError(InvalidType, ValueError):
    """The input's spatial size does not fit the given ``outsize``.

    An :class:`~kusari.utils.type_check.InvalidType`, as in Chainer 7, and a
    :class:`ValueError`.
    """


def _unpool(
    x: Any,
    ndim: int,
    ksize: Any,
    stride: Any,
    pad: Any,
    outsize: Any,
    cover_all: bool,
    fname: str,
) -> Variable:
    if len(x.shape) != ndim + 2:
        raise ValueError(
            f"{fname}: x must be {ndim + 2}-dimensional, got shape {tuple(x.shape)}"
        )
    pp = core.PoolParams(ndim, ksize, stride, pad, cover_all, fname)
    insz = tuple(x.shape[2:])
    if outsize is None:
        out = tuple(
            utils.get_deconv_outsize(n, k, s, p, cover_all=cover_all)
            for n, k, s, p in zip(insz, pp.k, pp.s, pp.p)
        )
        # An empty output (e.g. ksize 1 with pad 1 on a width of 2) is what
        # Chainer 7 gives too; only a negative size is an error.
        if any(o < 0 for o in out):
            raise ValueError(
                f"{fname}: the output size {out} inferred from the input size "
                f"{insz} is negative (ksize {pp.k}, stride {pp.s}, pad {pp.p}, "
                f"cover_all={cover_all})"
            )
    else:
        out = core.as_tuple(outsize, ndim, fname, "outsize")
        # The input must be exactly what the matching pooling (same
        # cover_all) makes of ``outsize``, as Chainer 7 checks it.
        fit = tuple(
            utils.get_conv_outsize(o, k, s, p, cover_all=cover_all)
            for o, k, s, p in zip(out, pp.k, pp.s, pp.p)
        )
        if insz != fit:
            raise UnpoolingSizeError(
                f"x.shape[2:] == {fit}",
                f"x.shape[2:] == {insz}",
                f"{fname}: outsize {out} needs an input of spatial size {fit} "
                f"(ksize {pp.k}, stride {pp.s}, pad {pp.p}, cover_all="
                f"{cover_all}), got {insz}",
            )
    label = "Unpooling2D" if ndim == 2 else "UnpoolingND"
    return SumUnpooling(pp, None, out, label).apply((x,))[0]


def unpooling_nd(
    x: Any,
    ksize: Any,
    stride: Any = None,
    pad: Any = 0,
    outsize: Any = None,
    cover_all: bool = True,
) -> Variable:
    """Inverse of N-d pooling: each value is spread over (added into) its window.

    Args:
        x: Input of shape ``(n, c, d_1, ..., d_N)``.
        ksize: Window size.
        stride: Stride; ``ksize`` if None.
        pad: Padding removed from the output.
        outsize: Output spatial size; inferred if None.
        cover_all: Whether the corresponding pooling used ``cover_all``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.unpooling_nd(np.array([[[1., 2.]]], np.float32), 2, cover_all=False).array
        array([[[1., 1., 2., 2.]]], dtype=float32)
    """
    if len(x.shape) < 3:
        raise ValueError(
            f"unpooling_nd: x must have at least 3 dimensions, got shape "
            f"{tuple(x.shape)}"
        )
    return _unpool(
        x, len(x.shape) - 2, ksize, stride, pad, outsize, cover_all, "unpooling_nd"
    )


def unpooling_1d(
    x: Any,
    ksize: Any,
    stride: Any = None,
    pad: Any = 0,
    outsize: Any = None,
    cover_all: bool = True,
) -> Variable:
    """1-dimensional unpooling.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.unpooling_1d(np.ones((1, 1, 3), np.float32), 2, cover_all=False).shape
        (1, 1, 6)
    """
    return _unpool(x, 1, ksize, stride, pad, outsize, cover_all, "unpooling_1d")


def unpooling_3d(
    x: Any,
    ksize: Any,
    stride: Any = None,
    pad: Any = 0,
    outsize: Any = None,
    cover_all: bool = True,
) -> Variable:
    """3-dimensional unpooling.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.ones((1, 1, 2, 2, 2), np.float32)
        >>> F.unpooling_3d(x, 2, cover_all=False).shape
        (1, 1, 4, 4, 4)
    """
    return _unpool(x, 3, ksize, stride, pad, outsize, cover_all, "unpooling_3d")
