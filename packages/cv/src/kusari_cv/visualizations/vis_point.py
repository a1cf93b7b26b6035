"""Draw keypoints."""

from __future__ import annotations

from typing import Any

import numpy as np

from kusari_cv._typing import Array
from kusari_cv.visualizations.vis_image import vis_image


def vis_point(
    img: Array | None, point: Array, visible: Array | None = None, ax: Any = None
) -> Any:
    """Scatter ``(y, x)`` keypoints over an image, one color per point index.

    Args:
        img: A ``(3, H, W)`` RGB image, or None.
        point: ``(R, K, 2)`` points of ``R`` instances.
        visible: ``(R, K)`` bool; only visible points are drawn.
        ax: A matplotlib axis; a new one if None.

    Returns:
        The axis.
    """
    from matplotlib import colormaps  # optional dependency

    point = np.asarray(point)
    if point.ndim != 3 or point.shape[2] != 2:
        raise ValueError(
            f"vis_point: point must have shape (R, K, 2), got {point.shape}"
        )
    if visible is not None and np.asarray(visible).shape != point.shape[:2]:
        raise ValueError(
            f"vis_point: visible must have shape {point.shape[:2]}, got "
            f"{np.asarray(visible).shape}"
        )
    ax = vis_image(img, ax=ax)
    n_point = point.shape[1]
    colors = colormaps["hsv"](np.linspace(0, 1, n_point, endpoint=False))
    for i, pts in enumerate(point):
        shown = (
            np.ones(n_point, bool) if visible is None else np.asarray(visible[i], bool)
        )
        ax.scatter(pts[shown, 1], pts[shown, 0], c=colors[shown], s=30)
    return ax
