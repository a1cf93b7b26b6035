"""Draw a semantic segmentation label map."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kusari_cv._typing import Array
from kusari_cv.visualizations.colormap import voc_colormap
from kusari_cv.visualizations.vis_image import vis_image


def vis_semantic_segmentation(
    img: Array | None,
    label: Array,
    label_names: Sequence[str] | None = None,
    label_colors: Array | None = None,
    ignore_label_color: tuple[float, float, float] = (0, 0, 0),
    alpha: float = 1,
    all_label_names_in_legend: bool = False,
    ax: Any = None,
) -> tuple[Any, list[Any]]:
    """Paint each pixel in its class color, over an image if given.

    Args:
        img: A ``(3, H, W)`` RGB image, or None.
        label: An ``(H, W)`` int map; -1 marks ignored pixels.
        label_names: Names of the classes, for the legend.
        label_colors: ``(n_class, 3)`` RGB colors in ``[0, 255]``; the VOC
            palette by default.
        ignore_label_color: The color of ignored pixels.
        alpha: Opacity of the colors over the image.
        all_label_names_in_legend: List every class in the legend, not only
            those present.
        ax: A matplotlib axis; a new one if None.

    Returns:
        ``(ax, legend_handles)``: the axis and one ``matplotlib.patches.Patch``
        per listed class (empty without ``label_names``); show them with
        ``ax.legend(handles=legend_handles)``.
    """
    from matplotlib.patches import Patch  # optional dependency

    label = np.asarray(label)
    if label.ndim != 2:
        raise ValueError(
            "vis_semantic_segmentation: label must have shape (H, W), "
            f"got {label.shape}"
        )
    if img is not None and tuple(img.shape[1:]) != label.shape:
        raise ValueError(
            "vis_semantic_segmentation: img and label sizes differ: "
            f"{tuple(img.shape[1:])} and {label.shape}"
        )
    n_class = (
        len(label_names) if label_names is not None else int(label.max(initial=-1)) + 1
    )
    if label_names is not None and label.max(initial=-1) >= n_class:
        raise ValueError(
            f"vis_semantic_segmentation: label {int(label.max())} has no name "
            f"(label_names has {n_class} entries)"
        )
    colors = (
        voc_colormap(range(n_class))
        if label_colors is None
        else np.asarray(label_colors)
    )
    if len(colors) < n_class:
        raise ValueError(
            f"vis_semantic_segmentation: label_colors has {len(colors)} colors, "
            f"{n_class} are needed"
        )
    palette = np.concatenate((colors[:n_class], [ignore_label_color])).astype(
        np.float64
    )
    # Index -1 picks the last row: the ignore color.
    rgb = palette[np.where(label < 0, -1, label)] / 255
    rgba = np.concatenate((rgb, np.full(label.shape + (1,), float(alpha))), axis=2)
    ax = vis_image(img, ax=ax)
    ax.imshow(rgba)

    handles = []
    if label_names is not None:
        present = set(np.unique(label).tolist())
        for lb, name in enumerate(label_names):
            if all_label_names_in_legend or lb in present:
                handles.append(Patch(color=palette[lb] / 255, label=name))
    return ax, handles
