"""Check that arrays are a set of keypoints."""

from __future__ import annotations

import numpy as np

from kusari_cv._typing import Array


def assert_is_point(
    point: Array,
    visible: Array | None = None,
    size: tuple[int, int] | None = None,
    n_point: int | None = None,
) -> None:
    """Raise ``AssertionError`` unless ``point`` is a float32 ``(R, K, 2)``
    array of ``(y, x)`` points (and ``visible`` a bool ``(R, K)`` array).

    Args:
        point: The points.
        visible: Their visibility, or None.
        size: ``(H, W)``: also check that visible points lie in the image.
        n_point: The expected ``K``, or None.
    """
    assert isinstance(point, np.ndarray), (
        f"point must be a numpy.ndarray, got {type(point)}"
    )
    assert point.dtype == np.float32, f"point must be float32, got {point.dtype}"
    assert point.ndim == 3 and point.shape[2] == 2, (
        f"point must have shape (R, K, 2), got {point.shape}"
    )
    if n_point is not None:
        assert point.shape[1] == n_point, (
            f"point must have {n_point} points per instance, got {point.shape[1]}"
        )
    if visible is not None:
        assert isinstance(visible, np.ndarray) and visible.dtype == np.bool_, (
            "visible must be a numpy.ndarray of bool"
        )
        assert visible.shape == point.shape[:2], (
            f"visible must have shape {point.shape[:2]}, got {visible.shape}"
        )
    if size is not None:
        pts = point if visible is None else point[visible]
        pts = pts.reshape(-1, 2)
        assert (pts >= 0).all() and (pts <= np.asarray(size)).all(), (
            f"points must lie inside the image of size {tuple(size)}"
        )
