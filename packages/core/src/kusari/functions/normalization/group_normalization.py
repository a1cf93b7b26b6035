"""Group normalization."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.functions.array.reshape import reshape
from kusari.functions.normalization.batch_normalization import (
    BatchNormalization,
    as_dtype,
)
from kusari.utils import type_check
from kusari.variable import Variable, as_array


def group_normalization(
    x: Any, groups: int, gamma: Any, beta: Any, eps: float = 1e-5
) -> Variable:
    """Group normalization: normalize each sample over groups of channels.

    The ``C`` channels of ``x`` (axis 1) are split into ``groups`` groups; each
    sample's group is normalized to zero mean and unit variance over its
    channels and spatial positions, then ``gamma`` and ``beta`` (shape ``(C,)``)
    scale and shift each channel.

    ``gamma`` and ``beta`` may have another float dtype than ``x`` (e.g.
    float32 parameters of a float16 model under ``kusari.mixed16``); the output
    has ``x``'s dtype and each gradient its input's dtype.

    Args:
        x: Input of shape ``(N, C, ...)``, ``ndim >= 3``.
        groups: Number of groups; must divide ``C``.
        gamma: Per-channel scale, ``(C,)``.
        beta: Per-channel shift, ``(C,)``.
        eps: Added to the variances.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.array([[[0.], [2.], [4.], [6.]]], np.float32)
        >>> one, zero = np.ones(4, np.float32), np.zeros(4, np.float32)
        >>> np.round(F.group_normalization(x, 2, one, zero, eps=0.).array.ravel(), 3)
        array([-1.,  1., -1.,  1.], dtype=float32)
    """
    x_shape = x.shape
    if len(x_shape) < 2:
        raise ValueError(
            "group_normalization: the input must have at least 2 "
            f"dimensions (batch, channel, ...), got shape {x_shape}"
        )
    if not isinstance(groups, int) or isinstance(groups, bool) or groups <= 0:
        raise TypeError(
            f"group_normalization: groups must be a positive int, got {groups!r}"
        )
    n, c = x_shape[:2]
    if c % groups != 0:
        raise ValueError(
            f"group_normalization: groups ({groups}) must divide the "
            f"number of channels ({c})"
        )
    g_arr, b_arr = as_array(gamma), as_array(beta)
    if (
        g_arr.dtype.kind != "f"
        or g_arr.shape != (c,)
        or b_arr.shape != (c,)
        or g_arr.dtype != b_arr.dtype
    ):
        raise type_check.InvalidType(
            "gamma.shape == beta.shape == (C,), gamma.dtype == beta.dtype (float)",
            f"gamma {g_arr.shape} {g_arr.dtype}, beta {b_arr.shape} {b_arr.dtype}, "
            f"C={c}",
        )
    xp = backend.get_array_module(g_arr)
    rows = n * groups
    dtype = x.dtype
    xr = reshape(x, (rows, -1))
    ones = xp.ones(rows, dtype)
    zeros = xp.zeros(rows, dtype)
    xn = BatchNormalization(eps, axis=(1,)).apply((xr, ones, zeros))[0]
    pshape = (1, c) + (1,) * (len(x_shape) - 2)
    return scale_shift(
        reshape(xn, x_shape), reshape(gamma, pshape), reshape(beta, pshape)
    )


def scale_shift(xn: Variable, gamma: Any, beta: Any) -> Variable:
    """``xn * gamma + beta`` in the dtype promoted from all three, as ``xn``'s.

    The parameters may have another dtype than the input (mixed precision:
    float32 ``gamma`` and ``beta`` with a float16 ``x``, as Chainer 7's group
    normalization accepts); the casts route each gradient back in its own
    input's dtype.
    """
    g_dtype = as_array(gamma).dtype
    if g_dtype == xn.dtype:
        return xn * gamma + beta
    wide = numpy.promote_types(xn.dtype, g_dtype)
    y = as_dtype(xn, wide) * as_dtype(gamma, wide) + as_dtype(beta, wide)
    return as_dtype(y, xn.dtype)
