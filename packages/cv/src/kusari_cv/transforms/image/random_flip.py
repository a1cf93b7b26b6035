"""Flip an image at random."""

from __future__ import annotations

import random
from typing import Any

from kusari_cv._typing import Array
from kusari_cv.transforms.image.flip import flip


def random_flip(
    img: Array,
    y_random: bool = False,
    x_random: bool = False,
    return_param: bool = False,
    copy: bool = False,
) -> Any:
    """Flip a CHW image vertically / horizontally, each with probability 1/2.

    Args:
        img: A ``(C, H, W)`` image.
        y_random: Maybe flip vertically.
        x_random: Maybe flip horizontally.
        return_param: Also return ``{'y_flip', 'x_flip'}``, what was done.
        copy: Return a copy instead of a view.

    Returns:
        The image, or ``(image, param)``.
    """
    y_flip = y_random and random.choice([True, False])
    x_flip = x_random and random.choice([True, False])
    out = flip(img, y_flip=y_flip, x_flip=x_flip, copy=copy)
    if return_param:
        return out, {"y_flip": y_flip, "x_flip": x_flip}
    return out
