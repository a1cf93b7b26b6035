"""``roi_average_pooling_2d``: RoI average pooling with separate batch indices."""

from __future__ import annotations

from typing import Any

import numpy

from kusari.functions.pooling import _roi_core as rc
from kusari.variable import Variable


class ROIAveragePooling2D(rc.RoIFunction):
    """Mean over integer bins of each RoI ``(y_min, x_min, y_max, x_max)``."""

    def __init__(self, outsize: Any, spatial_scale: Any) -> None:
        self.outsize = rc.pair(outsize, "roi_average_pooling_2d", "outsize")
        self.spatial_scale = rc.check_scale(spatial_scale, "roi_average_pooling_2d")

    def triplets(self, x: Any, rois: Any, idx: Any) -> tuple[Any, Any, Any]:
        _, C, H, W = x.shape
        pos, valid, count = rc.bin_candidates(
            rois, idx, x.shape, self.outsize, self.spatial_scale, False
        )
        w = 1.0 / numpy.maximum(count, 1)[..., None]
        return rc.expand_channels(pos, valid, w, C, H * W)


def roi_average_pooling_2d(
    x: Any, rois: Any, roi_indices: Any, outsize: Any, spatial_scale: Any
) -> Variable:
    """Spatial Region of Interest (RoI) average pooling.

    Bins as in :func:`roi_max_pooling_2d`; each output is the mean of its bin
    (zero for an empty bin).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> rois = np.array([[0, 0, 4, 4]], np.float32)
        >>> F.roi_average_pooling_2d(x, rois, np.array([0], np.int32), 2, 1.0).array
        array([[[[ 2.5,  4.5],
                 [10.5, 12.5]]]], dtype=float32)
    """
    return ROIAveragePooling2D(outsize, spatial_scale).apply((x, rois, roi_indices))[0]
