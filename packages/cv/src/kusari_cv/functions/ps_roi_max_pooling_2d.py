"""Position-sensitive RoI max pooling."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.variable import Variable
from kusari_cv._typing import Array
from kusari_cv.functions._ps_roi_common import PSRoIFunction, pick_max
from kusari_cv.functions.ps_roi_average_pooling_2d import pooling_taps


class PSROIMaxPooling2D(PSRoIFunction):
    fname = "ps_roi_max_pooling_2d"

    def taps(
        self, x: Array, rois: Array, roi_indices: Array, out_c: int
    ) -> tuple[Array, Array]:
        xp = backend.get_array_module(x)
        idx, inside, _ = pooling_taps(self, x, rois, roi_indices, out_c)
        return pick_max(xp, x, idx, inside.astype(x.dtype), inside, 1)


def ps_roi_max_pooling_2d(
    x: Any,
    rois: Array,
    roi_indices: Array,
    outsize: Any,
    spatial_scale: float,
    group_size: int,
) -> Variable:
    """Position-sensitive RoI max pooling.

    As :func:`ps_roi_average_pooling_2d` with the maximum of each bin (0 for
    an empty bin); the gradient goes to the maximal pixel.

    Args:
        x: ``(N, C, H, W)`` input with ``C = out_c * group_size ** 2``.
        rois: ``(R, 4)`` boxes ``(y_min, x_min, y_max, x_max)``.
        roi_indices: ``(R,)`` int batch index of each box.
        outsize: ``o``, ``(h, w)`` or ``(c, h, w)``.
        spatial_scale: Factor from box coordinates to ``x``'s pixels.
        group_size: Side of the position-sensitive grid.

    Returns:
        ``(R, out_c, h, w)`` Variable.
    """
    node = PSROIMaxPooling2D(outsize, spatial_scale, group_size)
    return node.apply((x, rois, roi_indices))[0]
