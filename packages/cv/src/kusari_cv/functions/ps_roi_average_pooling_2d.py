"""Position-sensitive RoI average pooling (R-FCN)."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.variable import Variable
from kusari_cv._typing import Array
from kusari_cv.functions._ps_roi_common import PSRoIFunction, channel_index, flat_index


def integer_bins(
    xp: Any, start: Array, end: Array, n_out: int, size: int
) -> tuple[Array, Array]:
    """``[lo, hi)`` pixel bins of each RoI side, R-FCN's rounding, clipped."""
    length = xp.maximum(end - start, 0.1)
    bin_size = (length / n_out)[:, None]
    p = xp.arange(n_out)[None, :]
    lo = xp.clip(xp.floor(p * bin_size + start[:, None]), 0, size).astype(numpy.int64)
    hi = xp.clip(xp.ceil((p + 1) * bin_size + start[:, None]), 0, size).astype(
        numpy.int64
    )
    return lo, hi


def pooling_taps(
    fn: PSRoIFunction, x: Array, rois: Array, roi_indices: Array, out_c: int
) -> tuple[Array, Array, Array]:
    """Every pixel of every bin: ``(idx, inside, area)`` of shapes ``(M, T)``,
    ``(M, T)`` and ``(M, 1)``."""
    xp = backend.get_array_module(x)
    _, C, H, W = x.shape
    s = fn.spatial_scale
    h_lo, h_hi = integer_bins(xp, rois[:, 0] * s, rois[:, 2] * s, fn.out_h, H)
    w_lo, w_hi = integer_bins(xp, rois[:, 1] * s, rois[:, 3] * s, fn.out_w, W)
    max_h = max(int((h_hi - h_lo).max()) if h_lo.size else 1, 1)
    max_w = max(int((w_hi - w_lo).max()) if w_lo.size else 1, 1)
    ys = h_lo[:, :, None] + xp.arange(max_h)  # (R, oh, max_h)
    xs = w_lo[:, :, None] + xp.arange(max_w)  # (R, ow, max_w)
    in_y = ys < h_hi[:, :, None]
    in_x = xs < w_hi[:, :, None]
    c = channel_index(xp, out_c, fn.out_h, fn.out_w, fn.group_size)
    idx = flat_index(
        roi_indices[:, None, None, None, None, None],
        c[None, :, :, :, None, None],
        xp.minimum(ys, H - 1)[:, None, :, None, :, None],
        xp.minimum(xs, W - 1)[:, None, None, :, None, :],
        C,
        H,
        W,
    )
    inside = in_y[:, None, :, None, :, None] & in_x[:, None, None, :, None, :]
    shape = (len(rois), out_c, fn.out_h, fn.out_w, max_h, max_w)
    area = ((h_hi - h_lo)[:, :, None] * (w_hi - w_lo)[:, None, :])[:, None]
    area = xp.broadcast_to(area, shape[:4])
    # explicit sizes (no -1): the reshape must also work for zero RoIs
    M, T = len(rois) * out_c * fn.out_h * fn.out_w, max_h * max_w
    return (
        xp.broadcast_to(idx, shape).reshape(M, T),
        xp.broadcast_to(inside, shape).reshape(M, T),
        area.reshape(M, 1),
    )


class PSROIAveragePooling2D(PSRoIFunction):
    fname = "ps_roi_average_pooling_2d"

    def taps(
        self, x: Array, rois: Array, roi_indices: Array, out_c: int
    ) -> tuple[Array, Array]:
        xp = backend.get_array_module(x)
        idx, inside, area = pooling_taps(self, x, rois, roi_indices, out_c)
        return idx, inside / xp.maximum(area, 1)


def ps_roi_average_pooling_2d(
    x: Any,
    rois: Array,
    roi_indices: Array,
    outsize: Any,
    spatial_scale: float,
    group_size: int,
) -> Variable:
    """Position-sensitive RoI average pooling.

    Each RoI is split into ``outsize`` bins; bin ``(ph, pw)`` of output
    channel ``c`` averages input channel ``(c * g + gh) * g + gw`` over the
    bin's pixels, where ``(gh, gw)`` is the bin's cell in a ``g x g``
    (``group_size``) grid. Bins are rounded outwards to whole pixels.

    Args:
        x: ``(N, C, H, W)`` input with ``C = out_c * group_size ** 2``.
        rois: ``(R, 4)`` boxes ``(y_min, x_min, y_max, x_max)``.
        roi_indices: ``(R,)`` int batch index of each box.
        outsize: ``o``, ``(h, w)`` or ``(c, h, w)`` (``c`` is checked).
        spatial_scale: Factor from box coordinates to ``x``'s pixels.
        group_size: Side of the position-sensitive grid.

    Returns:
        ``(R, out_c, h, w)`` Variable.

    Example:
        >>> import numpy as np
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 4, 2, 2)
        >>> rois = np.array([[0, 0, 2, 2]], np.float32)
        >>> y = ps_roi_average_pooling_2d(x, rois, np.array([0], np.int32), 2, 1.0, 2)
        >>> y.array
        array([[[[ 0.,  5.],
                 [10., 15.]]]], dtype=float32)
    """
    node = PSROIAveragePooling2D(outsize, spatial_scale, group_size)
    return node.apply((x, rois, roi_indices))[0]
