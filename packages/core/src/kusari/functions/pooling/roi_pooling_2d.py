"""``roi_pooling_2d``: Fast R-CNN RoI max pooling (batch index inside ``rois``)."""

from __future__ import annotations

from typing import Any

from kusari.functions.pooling.roi_max_pooling_2d import ROIMaxPooling2D
from kusari.variable import Variable


class ROIPooling2D(ROIMaxPooling2D):
    """RoIs are ``(batch_index, x_min, y_min, x_max, y_max)``; inclusive ends."""

    n_cols = 5
    with_indices = False
    plus_one = True

    def triplets(self, x: Any, rois: Any, idx: Any) -> tuple[Any, Any, Any]:
        # (x_min, y_min, x_max, y_max) -> (y_min, x_min, y_max, x_max)
        return super().triplets(x, rois[:, [1, 0, 3, 2]], idx)


def roi_pooling_2d(
    x: Any, rois: Any, outh: int, outw: int, spatial_scale: Any
) -> Variable:
    """Spatial Region of Interest (RoI) pooling (Fast R-CNN).

    Args:
        x: Input of shape ``(n, c, h, w)``.
        rois: ``(R, 5)`` array ``(batch_index, x_min, y_min, x_max, y_max)``.
        outh: Output height.
        outw: Output width.
        spatial_scale: Scale from RoI coordinates to ``x``'s pixels.

    Returns:
        Variable of shape ``(R, c, outh, outw)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> rois = np.array([[0, 0, 0, 3, 3]], np.float32)
        >>> F.roi_pooling_2d(x, rois, 2, 2, 1.0).array
        array([[[[ 5.,  7.],
                 [13., 15.]]]], dtype=float32)
    """
    node = ROIPooling2D((outh, outw), spatial_scale, fname="roi_pooling_2d")
    return node.apply((x, rois))[0]
