"""``roi_average_align_2d``: RoIAlign with average over bilinear samples."""

from __future__ import annotations

from typing import Any

from kusari.functions.pooling import _roi_core as rc
from kusari.variable import Variable


def _check_sampling(sampling_ratio: Any, fname: str) -> Any:
    if sampling_ratio is None:
        return None
    rc.pair(sampling_ratio, fname, "sampling_ratio")
    return sampling_ratio


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
        sampling_ratio: Samples per bin and axis (int or pair), or None.

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
