"""Tile a batch of images into one image."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from kusari_cv._typing import Array


def tile_images(imgs: Array, n_col: int, pad: int = 2, fill: Any = 0) -> Array:
    """Arrange a batch of CHW images in a grid.

    Args:
        imgs: An array of shape ``(B, C, H, W)``.
        n_col: Images per row (at most ``B`` are used).
        pad: Pixels between images; each cell is ``(H + pad, W + pad)`` and
            holds its image at offset ``pad // 2``.
        fill: The value of the padding: a scalar, or one value per channel
            (a sequence or a ``(C, 1, 1)`` array).

    Returns:
        An array of shape ``(C, (H + pad) * n_row, (W + pad) * n_col)`` with
        ``n_row = ceil(B / n_col)``.

    Example:
        >>> import numpy as np
        >>> tile_images(np.ones((3, 1, 2, 2)), n_col=2, pad=0).shape
        (1, 4, 4)
    """
    if getattr(imgs, "ndim", None) != 4:
        raise ValueError(
            "tile_images: imgs must have shape (B, C, H, W), got "
            f"{getattr(imgs, 'shape', None)}"
        )
    b, c, h, w = imgs.shape
    if n_col < 1:
        raise ValueError(f"tile_images: n_col must be positive, got {n_col}")
    n_col = min(n_col, b)
    n_row = math.ceil(b / n_col) if b else 0
    tile = np.empty((c, (h + pad) * n_row, (w + pad) * n_col), dtype=imgs.dtype)
    tile[:] = np.asarray(fill).reshape(-1, 1, 1)
    off = pad // 2
    for k in range(b):
        y = (k // n_col) * (h + pad) + off
        x = (k % n_col) * (w + pad) + off
        tile[:, y : y + h, x : x + w] = imgs[k]
    return tile
