"""Rotate an image by a random multiple of 90 degrees."""

from __future__ import annotations

from typing import Any

import numpy as np

from kusari_cv._typing import Array
from kusari_cv.transforms.image._check import check_chw


def random_rotate(img: Array, return_param: bool = False) -> Any:
    """Rotate a CHW image counter-clockwise by ``90 * k`` degrees,
    ``k`` uniform in ``{0, 1, 2, 3}`` (NumPy's global random state).

    Args:
        img: A ``(C, H, W)`` image.
        return_param: Also return ``{'k': k}``.

    Returns:
        The rotated image, or ``(image, param)``.
    """
    check_chw("random_rotate", img)
    k = int(np.random.randint(4))
    out = np.rot90(img, k, axes=(1, 2))
    if return_param:
        return out, {"k": k}
    return out
