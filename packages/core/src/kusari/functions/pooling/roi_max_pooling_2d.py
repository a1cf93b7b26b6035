"""``roi_max_pooling_2d``: RoI max pooling with separate batch indices."""

from __future__ import annotations

from typing import Any

import numpy

from kusari.functions.pooling import _roi_core as rc
from kusari.variable import Variable


class ROIMaxPooling2D(rc.RoIFunction):
    """Max over integer bins of each RoI ``(y_min, x_min, y_max, x_max)``."""

    plus_one = False

    def __init__(
        self, outsize: Any, spatial_scale: Any, fname: str = "roi_max_pooling_2d"
    ) -> None:
        self.outsize = rc.pair(outsize, fname, "outsize")
        self.spatial_scale = rc.check_scale(spatial_scale, fname)

    def triplets(self, x: Any, rois: Any, idx: Any) -> tuple[Any, Any, Any]:
        _, C, H, W = x.shape
        pos, valid, _ = rc.bin_candidates(
            rois, idx, x.shape, self.outsize, self.spatial_scale, self.plus_one
        )
        pc = rc.per_channel(pos, C, H * W)  # R, C, oh, ow, M
        vals = x.reshape(-1)[pc]
        valid_c = numpy.broadcast_to(valid[:, None], vals.shape)
        return rc.select_max(vals, valid_c, pc[..., None], None)


def roi_max_pooling_2d(
    x: Any, rois: Any, roi_indices: Any, outsize: Any, spatial_scale: Any
) -> Variable:
    """Spatial Region of Interest (RoI) max pooling.

    Each RoI ``(y_min, x_min, y_max, x_max)`` (scaled by ``spatial_scale``
    and rounded) is split into ``outsize`` integer bins; each output is the
    maximum of its bin (zero for an empty bin).

    Args:
        x: Input of shape ``(n, c, h, w)``.
        rois: ``(R, 4)`` array of boxes, same dtype as ``x``.
        roi_indices: ``(R,)`` int32 batch index of each RoI.
        outsize: ``(out_h, out_w)`` or an int.
        spatial_scale: Scale from RoI coordinates to ``x``'s pixels.

    Returns:
        Variable of shape ``(R, c, out_h, out_w)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> rois = np.array([[0, 0, 4, 4]], np.float32)
        >>> F.roi_max_pooling_2d(x, rois, np.array([0], np.int32), 2, 1.0).array
        array([[[[ 5.,  7.],
                 [13., 15.]]]], dtype=float32)
    """
    return ROIMaxPooling2D(outsize, spatial_scale).apply((x, rois, roi_indices))[0]
