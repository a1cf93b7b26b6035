"""Position-sensitive RoI average align (bilinear sampling, no rounding)."""

from __future__ import annotations

import math
from typing import Any

import numpy

from kusari import backend
from kusari.variable import Variable
from kusari_cv._typing import Array
from kusari_cv.functions._ps_roi_common import (
    PSRoIFunction,
    bilinear_taps,
    channel_index,
    flat_index,
)


def _sampling_ratio(fname: str, sampling_ratio: Any) -> tuple[int | None, int | None]:
    if sampling_ratio is None:
        return None, None
    if isinstance(sampling_ratio, int):
        sampling_ratio = (sampling_ratio, sampling_ratio)
    if (
        not isinstance(sampling_ratio, tuple | list)
        or len(sampling_ratio) != 2
        or not all(isinstance(v, int) and v > 0 for v in sampling_ratio)
    ):
        raise TypeError(
            f"{fname}: sampling_ratio must be None, a positive int or a pair of "
            f"them, got {sampling_ratio!r}"
        )
    return sampling_ratio[0], sampling_ratio[1]


def _samples(
    xp: Any, start: Array, end: Array, n_out: int, ratio: int | None
) -> tuple[Array, Array, Array]:
    # sample positions (R, n_out, G), which of the G are used (R, G), and the
    # number used per bin (R,)
    length = xp.maximum(end - start, 1.0)
    bin_size = length / n_out
    if ratio is None:
        grid = xp.ceil(length / n_out).astype(numpy.int64)
    else:
        grid = xp.full(len(start), ratio, dtype=numpy.int64)
    G = max(int(grid.max()) if grid.size else 1, 1)
    p = xp.arange(n_out)[None, :, None]
    i = xp.arange(G)[None, None, :]
    pos = (
        start[:, None, None]
        + p * bin_size[:, None, None]
        + (i + 0.5) * (bin_size / grid)[:, None, None]
    )
    return pos, xp.arange(G)[None, :] < grid[:, None], grid


def align_taps(
    fn: PSRoIFunction,
    x: Array,
    rois: Array,
    roi_indices: Array,
    out_c: int,
    sampling_ratio: tuple[int | None, int | None],
) -> tuple[Array, Array, Array, Array]:
    """Bilinear taps of every sample point: ``idx``, ``w`` of shape
    ``(M, S * 4)``, sample validity ``(M, S)`` and samples per bin ``(M, 1)``."""
    xp = backend.get_array_module(x)
    _, C, H, W = x.shape
    s = fn.spatial_scale
    ys, use_y, grid_h = _samples(
        xp, rois[:, 0] * s, rois[:, 2] * s, fn.out_h, sampling_ratio[0]
    )
    xs, use_x, grid_w = _samples(
        xp, rois[:, 1] * s, rois[:, 3] * s, fn.out_w, sampling_ratio[1]
    )
    R, Gh, Gw = len(rois), ys.shape[2], xs.shape[2]
    Y = xp.broadcast_to(ys[:, :, None, :, None], (R, fn.out_h, fn.out_w, Gh, Gw))
    X = xp.broadcast_to(xs[:, None, :, None, :], (R, fn.out_h, fn.out_w, Gh, Gw))
    cy, cx, cw, valid = bilinear_taps(xp, Y, X, H, W)
    used = use_y[:, None, None, :, None] & use_x[:, None, None, None, :]
    valid = valid & used
    cw = cw * used[..., None]
    c = channel_index(xp, out_c, fn.out_h, fn.out_w, fn.group_size)
    idx = flat_index(
        roi_indices[:, None, None, None, None, None, None],
        c[None, :, :, :, None, None, None],
        cy[:, None],
        cx[:, None],
        C,
        H,
        W,
    )
    shape = (R, out_c, fn.out_h, fn.out_w, Gh, Gw, 4)
    M = R * out_c * fn.out_h * fn.out_w
    count = xp.broadcast_to((grid_h * grid_w)[:, None], (R, math.prod(shape[1:4])))
    # explicit sizes (no -1): the reshape must also work for zero RoIs
    S = Gh * Gw
    return (
        xp.broadcast_to(idx, shape).reshape(M, S * 4),
        xp.broadcast_to(cw[:, None], shape).reshape(M, S * 4),
        xp.broadcast_to(valid[:, None], shape[:6]).reshape(M, S),
        count.reshape(M, 1),
    )


class PSRoIAlignFunction(PSRoIFunction):
    """Base of the two align functions: bilinear samples on a grid per bin."""

    def __init__(
        self,
        outsize: Any,
        spatial_scale: float,
        group_size: int,
        sampling_ratio: Any = None,
    ) -> None:
        super().__init__(outsize, spatial_scale, group_size)
        self.sampling_ratio = _sampling_ratio(self.fname, sampling_ratio)

    def align_taps(
        self, x: Array, rois: Array, roi_indices: Array, out_c: int
    ) -> tuple[Array, Array, Array, Array]:
        """:func:`align_taps` with this function's sizes and sampling ratio."""
        return align_taps(self, x, rois, roi_indices, out_c, self.sampling_ratio)


class PSROIAverageAlign2D(PSRoIAlignFunction):
    fname = "ps_roi_average_align_2d"

    def taps(
        self, x: Array, rois: Array, roi_indices: Array, out_c: int
    ) -> tuple[Array, Array]:
        idx, w, _, count = self.align_taps(x, rois, roi_indices, out_c)
        return idx, w / count


def ps_roi_average_align_2d(
    x: Any,
    rois: Array,
    roi_indices: Array,
    outsize: Any,
    spatial_scale: float,
    group_size: int,
    sampling_ratio: Any = None,
) -> Variable:
    """Position-sensitive RoI average align.

    Like :func:`ps_roi_average_pooling_2d`, but each bin averages bilinear
    samples on a regular grid (``sampling_ratio`` per side, by default
    ``ceil(roi side / out side)``) and the box is not rounded.

    Args:
        x: ``(N, C, H, W)`` input with ``C = out_c * group_size ** 2``.
        rois: ``(R, 4)`` boxes ``(y_min, x_min, y_max, x_max)``.
        roi_indices: ``(R,)`` int batch index of each box.
        outsize: ``o``, ``(h, w)`` or ``(c, h, w)``.
        spatial_scale: Factor from box coordinates to ``x``'s pixels.
        group_size: Side of the position-sensitive grid.
        sampling_ratio: None, an int or ``(int, int)``.

    Returns:
        ``(R, out_c, h, w)`` Variable.
    """
    node = PSROIAverageAlign2D(outsize, spatial_scale, group_size, sampling_ratio)
    return node.apply((x, rois, roi_indices))[0]
