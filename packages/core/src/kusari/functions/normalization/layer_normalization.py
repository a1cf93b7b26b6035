"""Layer normalization."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.functions.normalization.batch_normalization import BatchNormalization
from kusari.functions.normalization.group_normalization import scale_shift
from kusari.utils import type_check
from kusari.variable import Variable, as_array


def layer_normalization(x: Any, gamma: Any, beta: Any, eps: float = 1e-5) -> Variable:
    """Layer normalization: normalize each sample over its features.

    ``y = gamma * (x - mean) / sqrt(var + eps) + beta`` with ``mean`` and ``var``
    taken per sample over every axis but the first.

    ``gamma`` and ``beta`` may have another float dtype than ``x``; the output
    has ``x``'s dtype and each gradient its input's dtype.

    Args:
        x: Input of shape ``(N, D)`` (or ``(N, d1, d2, ...)``).
        gamma: Scale of shape ``x.shape[1:]``.
        beta: Shift of shape ``x.shape[1:]``.
        eps: Added to the variances.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.array([[0., 2.]], np.float32)
        >>> one, zero = np.ones(2, np.float32), np.zeros(2, np.float32)
        >>> np.round(F.layer_normalization(x, one, zero, eps=0.).array, 3)
        array([[-1.,  1.]], dtype=float32)
    """
    x_shape = x.shape
    g_arr, b_arr = as_array(gamma), as_array(beta)
    if (
        len(x_shape) < 2
        or g_arr.shape != x_shape[1:]
        or b_arr.shape != x_shape[1:]
        or x.dtype.kind != "f"
        or g_arr.dtype != b_arr.dtype
        or g_arr.dtype.kind != "f"
    ):
        raise type_check.InvalidType(
            "x.ndim >= 2, gamma.shape == beta.shape == x.shape[1:], float dtypes, "
            "gamma.dtype == beta.dtype",
            f"x {x_shape} {x.dtype}, gamma {g_arr.shape} {g_arr.dtype}, "
            f"beta {b_arr.shape} {b_arr.dtype}",
        )
    xp = backend.get_array_module(g_arr)
    n = x_shape[0]
    ones = xp.ones(n, x.dtype)
    zeros = xp.zeros(n, x.dtype)
    axis = tuple(range(1, len(x_shape)))
    xn = BatchNormalization(eps, axis=axis).apply((x, ones, zeros))[0]
    return scale_shift(xn, gamma, beta)
