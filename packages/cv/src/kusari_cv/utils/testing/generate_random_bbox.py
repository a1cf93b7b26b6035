"""Random boxes for tests."""

from __future__ import annotations

import numpy as np

from kusari_cv._typing import Array


def generate_random_bbox(
    n: int, img_size: tuple[int, int], min_length: float, max_length: float
) -> Array:
    """``n`` random boxes inside an image, with sides in ``[min_length, max_length)``.

    Uses NumPy's global random state (seed it with ``np.random.seed``).

    Args:
        n: How many boxes.
        img_size: ``(H, W)``; both must be at least ``max_length``.
        min_length: The shortest side.
        max_length: The longest side.

    Returns:
        A float32 array of shape ``(n, 4)``, ``(y_min, x_min, y_max, x_max)``.

    Example:
        >>> bbox = generate_random_bbox(5, (32, 48), 4, 16)
        >>> bbox.shape, bool((bbox[:, 2:] <= (32, 48)).all())
        ((5, 4), True)
    """
    h, w = img_size
    if h < max_length or w < max_length:
        raise ValueError(
            f"generate_random_bbox: img_size {tuple(img_size)} must be at least "
            f"max_length ({max_length}) on both sides"
        )
    y_min = np.random.uniform(0, h - max_length, size=n)
    x_min = np.random.uniform(0, w - max_length, size=n)
    y_max = y_min + np.random.uniform(min_length, max_length, size=n)
    x_max = x_min + np.random.uniform(min_length, max_length, size=n)
    return np.stack((y_min, x_min, y_max, x_max), axis=1).astype(np.float32)
