"""Draw instance masks with captions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kusari_cv._typing import Array
from kusari_cv.utils.mask.mask_to_bbox import mask_to_bbox
from kusari_cv.visualizations.colormap import voc_colormap
from kusari_cv.visualizations.vis_bbox import caption, check_lengths
from kusari_cv.visualizations.vis_image import vis_image


def vis_instance_segmentation(
    img: Array | None,
    mask: Array,
    label: Array | None = None,
    score: Array | None = None,
    label_names: Sequence[str] | None = None,
    instance_colors: Array | None = None,
    alpha: float = 0.7,
    sort_by_score: bool = True,
    ax: Any = None,
) -> Any:
    """Paint each instance's mask in its own color, with a caption.

    Args:
        img: A ``(3, H, W)`` RGB image, or None.
        mask: ``(R, H, W)`` bool masks.
        label: ``(R,)`` label ids, or None.
        score: ``(R,)`` scores, or None.
        label_names: Names indexed by label id.
        instance_colors: ``(N, 3)`` RGB colors in ``[0, 255]`` cycled over the
            instances; the VOC palette (from 1) by default.
        alpha: Opacity of the masks.
        sort_by_score: Draw higher scores last (on top).
        ax: A matplotlib axis; a new one if None.

    Returns:
        The axis.
    """
    mask = np.asarray(mask)
    if mask.ndim != 3:
        raise ValueError(
            "vis_instance_segmentation: mask must have shape (R, H, W), "
            f"got {mask.shape}"
        )
    check_lengths("vis_instance_segmentation", len(mask), label, score)
    if sort_by_score and score is not None:
        order = np.argsort(np.asarray(score))
        mask = mask[order]
        label = None if label is None else np.asarray(label)[order]
        score = np.asarray(score)[order]
    ax = vis_image(img, ax=ax)
    n, h, w = mask.shape
    if n == 0:
        return ax
    colors = (
        voc_colormap(range(1, n + 1))
        if instance_colors is None
        else np.asarray(instance_colors)
    )
    # One RGBA layer holding every mask, later ones on top.
    layer = np.zeros((h, w, 4))
    for i in range(n):
        layer[mask[i], :3] = colors[i % len(colors)] / 255
        layer[mask[i], 3] = alpha
    ax.imshow(layer)
    for i, (y0, x0, _, _) in enumerate(mask_to_bbox(mask)):
        text = caption(i, label, score, label_names)
        if text and mask[i].any():
            ax.text(
                x0,
                y0,
                text,
                style="italic",
                bbox={"facecolor": "white", "alpha": 0.7, "pad": 10},
            )
    return ax
