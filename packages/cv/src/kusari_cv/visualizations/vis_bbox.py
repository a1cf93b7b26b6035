"""Draw bounding boxes with captions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kusari_cv._typing import Array
from kusari_cv.utils.bbox._check import check_bbox
from kusari_cv.visualizations.vis_image import vis_image


def caption(
    i: int, label: Array | None, score: Array | None, label_names: Sequence[str] | None
) -> str:
    """``'name: 0.93'``-style caption of instance ``i`` (shared with masks)."""
    parts = []
    if label is not None and label_names is not None:
        lb = int(label[i])
        if not 0 <= lb < len(label_names):
            raise ValueError(
                f"label {lb} has no name: label_names has {len(label_names)} entries"
            )
        parts.append(label_names[lb])
    if score is not None:
        parts.append(f"{float(score[i]):.2f}")
    return ": ".join(parts)


def check_lengths(function: str, n: int, label: Any, score: Any) -> None:
    """Raise ``ValueError`` unless label and score (when given) have ``n`` entries."""
    for name, v in (("label", label), ("score", score)):
        if v is not None and len(v) != n:
            raise ValueError(
                f"{function}: {name} must have one entry per instance ({n}), "
                f"got {len(v)}"
            )


def vis_bbox(
    img: Array | None,
    bbox: Array,
    label: Array | None = None,
    score: Array | None = None,
    label_names: Sequence[str] | None = None,
    instance_colors: Array | None = None,
    alpha: float = 1.0,
    linewidth: float = 3.0,
    sort_by_score: bool = True,
    ax: Any = None,
) -> Any:
    """Draw boxes (and their label names and scores) over an image.

    Args:
        img: A ``(3, H, W)`` RGB image, or None.
        bbox: ``(R, 4)`` boxes, ``(y_min, x_min, y_max, x_max)``.
        label: ``(R,)`` label ids, or None.
        score: ``(R,)`` scores, or None.
        label_names: Names indexed by label id.
        instance_colors: ``(N, 3)`` RGB colors in ``[0, 255]`` cycled over the
            boxes; red by default.
        alpha: Opacity of the box edges.
        linewidth: Width of the box edges.
        sort_by_score: Draw higher scores last (on top).
        ax: A matplotlib axis; a new one if None.

    Returns:
        The axis.
    """
    from matplotlib.patches import Rectangle  # optional dependency

    check_bbox("vis_bbox", bbox)
    check_lengths("vis_bbox", len(bbox), label, score)
    if sort_by_score and score is not None:
        order = np.argsort(np.asarray(score))
        bbox = np.asarray(bbox)[order]
        label = None if label is None else np.asarray(label)[order]
        score = np.asarray(score)[order]
    ax = vis_image(img, ax=ax)
    if len(bbox) == 0:
        return ax
    colors = (
        np.array([[255.0, 0.0, 0.0]])
        if instance_colors is None
        else np.asarray(instance_colors)
    )
    for i, (y0, x0, y1, x1) in enumerate(np.asarray(bbox, dtype=np.float64)):
        color = colors[i % len(colors)] / 255
        ax.add_patch(
            Rectangle(
                (x0, y0),
                x1 - x0,
                y1 - y0,
                fill=False,
                edgecolor=color,
                linewidth=linewidth,
                alpha=alpha,
            )
        )
        text = caption(i, label, score, label_names)
        if text:
            ax.text(
                x0,
                y0,
                text,
                style="italic",
                bbox={"facecolor": "white", "alpha": 0.5, "pad": 0},
            )
    return ax
