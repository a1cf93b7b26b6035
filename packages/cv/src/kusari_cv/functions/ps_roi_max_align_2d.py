"""Position-sensitive RoI max align."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.variable import Variable
from kusari_cv._typing import Array
from kusari_cv.functions._ps_roi_common import pick_max
from kusari_cv.functions.ps_roi_average_align_2d import PSRoIAlignFunction


class PSROIMaxAlign2D(PSRoIAlignFunction):
    fname = "ps_roi_max_align_2d"

    def taps(
        self, x: Array, rois: Array, roi_indices: Array, out_c: int
    ) -> tuple[Array, Array]:
        xp = backend.get_array_module(x)
        idx, w, valid, _ = self.align_taps(x, rois, roi_indices, out_c)
        return pick_max(xp, x, idx, w, valid, 4)


def ps_roi_max_align_2d(
    x: Any,
    rois: Array,
    roi_indices: Array,
    outsize: Any,
    spatial_scale: float,
    group_size: int,
    sampling_ratio: Any = None,
) -> Variable:
    """Position-sensitive RoI max align.

    As :func:`ps_roi_average_align_2d` with the largest bilinear sample of
    each bin (0 when no sample lies on the map); the gradient goes to that
    sample's four neighbours.

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
    node = PSROIMaxAlign2D(outsize, spatial_scale, group_size, sampling_ratio)
    return node.apply((x, rois, roi_indices))[0]
