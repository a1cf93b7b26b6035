"""Show an image on a matplotlib axis."""

from __future__ import annotations

from typing import Any

import numpy as np

from kusari_cv._typing import Array


def _axis(ax: Any) -> Any:
    if ax is None:
        import matplotlib.pyplot as plt  # optional dependency (kusari-cv[plot])

        fig = plt.figure()
        ax = fig.add_subplot(1, 1, 1)
    return ax


def vis_image(img: Array | None, ax: Any = None) -> Any:
    """Draw a CHW RGB image (values in ``[0, 255]``) on ``ax``.

    Args:
        img: A ``(3, H, W)`` array, or None to only prepare the axis.
        ax: A matplotlib axis; a new figure's axis if None.

    Returns:
        The axis.
    """
    ax = _axis(ax)
    if img is not None:
        if getattr(img, "ndim", None) != 3 or img.shape[0] != 3:
            raise ValueError(
                "vis_image: img must have shape (3, H, W), got "
                f"{getattr(img, 'shape', type(img).__name__)}"
            )
        ax.imshow(np.asarray(img).transpose(1, 2, 0).astype(np.uint8))
    return ax
