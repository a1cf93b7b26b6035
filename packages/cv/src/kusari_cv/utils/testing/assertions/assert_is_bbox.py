"""Check that an array is a set of boxes."""

from __future__ import annotations

import numpy as np

from kusari_cv._typing import Array


def assert_is_bbox(bbox: Array, size: tuple[int, int] | None = None) -> None:
    """Raise ``AssertionError`` unless ``bbox`` is a float32 ``(R, 4)`` array
    of ``(y_min, x_min, y_max, x_max)`` boxes with ``min <= max``.

    Args:
        bbox: The array to check.
        size: ``(H, W)``: also check that the boxes lie inside the image.
    """
    assert isinstance(bbox, np.ndarray), (
        f"bbox must be a numpy.ndarray, got {type(bbox)}"
    )
    assert bbox.dtype == np.float32, f"bbox must be float32, got {bbox.dtype}"
    assert bbox.ndim == 2 and bbox.shape[1] == 4, (
        f"bbox must have shape (R, 4), got {bbox.shape}"
    )
    assert (bbox[:, :2] <= bbox[:, 2:]).all(), (
        "bbox must have y_min <= y_max and x_min <= x_max"
    )
    if size is not None:
        assert (bbox[:, :2] >= 0).all(), "bbox must not start before (0, 0)"
        assert (bbox[:, 2:] <= np.asarray(size)).all(), (
            f"bbox must not end beyond the image size {tuple(size)}"
        )
