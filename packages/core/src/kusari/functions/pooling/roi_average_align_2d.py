"""``roi_average_align_2d``: RoIAlign with average over bilinear samples."""

from __future__ import annotations

from typing import Any

import numpy

from kusari.functions.pooling import _roi_core as rc
from kusari.variable import Variable


def _check_sampling(sampling_ratio: Any, fname: str) -> Any:
    """``sampling_ratio`` as a pair, each a positive int or None (as Chainer 7).

    None on an axis means an adaptive grid there (``ceil(roi size / outsize)``).
    """
    if sampling_ratio is None:
        return None
    pair = (
        tuple(sampling_ratio)
        if isinstance(sampling_ratio, (tuple, list))
        else (sampling_ratio, sampling_ratio)
    )
    if len(pair) != 2 or not all(
        s is None or (isinstance(s, (int, numpy.integer)) and s > 0) for s in pair
    ):
        raise TypeError(
            f"{fname}: sampling_ratio must be a positive int, None, or a pair of "
            f"them, got {sampling_ratio!r}"
        )
    if pair == (None, None):
        return None
    return tuple(None if s is None else int(s) for s in pair)


class ROIAverageAlign2D(rc.RoIFunction):
    """Mean of bilinearly interpolated samples in each bin (no rounding)."""

    def __init__(
        self, outsize: Any, spatial_scale: Any, sampling_ratio: Any = None
    ) -> None:
        self.outsize = rc.pair(outsize, "roi_average_align_2d", "outsize")
        self.spatial_scale = rc.check_scale(spatial_scale, "roi_average_align_2d")
        self.sampling_ratio = _check_sampling(sampling_ratio, "roi_average_align_2d")

    def triplets(self, x: Any, rois: Any, idx: Any) -> tuple[Any, Any, Any]:
        _, C, H, W = x.shape
        pos, wts, ok, count = rc.align_samples(
            rois, idx, x.shape, self.outsize, self.spatial_scale, self.sampling_ratio
        )
        R, oh, ow, S, _ = pos.shape
        w = wts / count[:, None, None, None, None]
        valid = (ok[..., None] & (wts != 0)).reshape(R, oh, ow, S * 4)
        return rc.expand_channels(
            pos.reshape(R, oh, ow, S * 4), valid, w.reshape(R, oh, ow, S * 4), C, H * W
        )


def roi_average_align_2d(
    x: Any,
    rois: Any,
    roi_indices: Any,
    outsize: Any,
    spatial_scale: Any,
    sampling_ratio: Any = None,
) -> Variable:
    """Region of Interest (RoI) align with average pooling (Mask R-CNN).

    Each RoI ``(y_min, x_min, y_max, x_max)`` (scaled, not rounded) is split
    into ``outsize`` bins; each bin averages ``sampling_ratio`` (default
    ``ceil(roi_size / outsize)``) bilinear samples per axis.

    Args:
        x: Input of shape ``(n, c, h, w)``.
        rois: ``(R, 4)`` boxes.
        roi_indices: ``(R,)`` int32 batch indices.
        outsize: ``(out_h, out_w)`` or an int.
        spatial_scale: Scale from RoI coordinates to pixels.
        sampling_ratio: Samples per bin and axis (int or pair), or None for
            an adaptive grid (also per axis, e.g. ``(None, 2)``).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.ones((1, 1, 4, 4), np.float32)
        >>> rois = np.array([[0, 0, 3, 3]], np.float32)
        >>> F.roi_average_align_2d(x, rois, np.array([0], np.int32), 2, 1.0).array
        array([[[[1., 1.],
                 [1., 1.]]]], dtype=float32)
    """
    node = ROIAverageAlign2D(outsize, spatial_scale, sampling_ratio)
    return node.apply((x, rois, roi_indices))[0]
