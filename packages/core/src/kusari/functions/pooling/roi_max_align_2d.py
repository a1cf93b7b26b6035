"""``roi_max_align_2d``: RoIAlign with max over bilinear samples."""

from __future__ import annotations

from typing import Any

from kusari.functions.pooling import _roi_core as rc
from kusari.functions.pooling.roi_average_align_2d import _check_sampling
from kusari.variable import Variable


class ROIMaxAlign2D(rc.RoIFunction):
    """Max of bilinearly interpolated samples in each bin (no rounding)."""

    def __init__(
        self, outsize: Any, spatial_scale: Any, sampling_ratio: Any = None
    ) -> None:
        self.outsize = rc.pair(outsize, "roi_max_align_2d", "outsize")
        self.spatial_scale = rc.check_scale(spatial_scale, "roi_max_align_2d")
        self.sampling_ratio = _check_sampling(sampling_ratio, "roi_max_align_2d")

    def triplets(self, x: Any, rois: Any, idx: Any) -> tuple[Any, Any, Any]:
        _, C, H, W = x.shape
        pos, wts, ok, _ = rc.align_samples(
            rois, idx, x.shape, self.outsize, self.spatial_scale, self.sampling_ratio
        )
        pc = rc.per_channel(pos, C, H * W)  # R, C, oh, ow, S, 4
        wc = wts[:, None].astype(x.dtype)
        vals = (x.reshape(-1)[pc] * wc).sum(axis=-1)  # R, C, oh, ow, S
        okc = rc.numpy.broadcast_to(ok[:, None], vals.shape)
        wfull = rc.numpy.broadcast_to(wts[:, None], pc.shape)
        return rc.select_max(vals, okc, pc, wfull)


def roi_max_align_2d(
    x: Any,
    rois: Any,
    roi_indices: Any,
    outsize: Any,
    spatial_scale: Any,
    sampling_ratio: Any = None,
) -> Variable:
    """Region of Interest (RoI) align with max pooling.

    Like :func:`roi_average_align_2d` but each bin takes the largest of its
    bilinear samples (zero if none lies inside the image).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> rois = np.array([[0, 0, 4, 4]], np.float32)
        >>> F.roi_max_align_2d(x, rois, np.array([0], np.int32), 2, 1.0, 1).array
        array([[[[ 5.,  7.],
                 [13., 15.]]]], dtype=float32)
    """
    node = ROIMaxAlign2D(outsize, spatial_scale, sampling_ratio)
    return node.apply((x, rois, roi_indices))[0]
