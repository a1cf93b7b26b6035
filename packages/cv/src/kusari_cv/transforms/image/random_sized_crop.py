"""Crop a region of random area and aspect ratio (Inception-style)."""

from __future__ import annotations

import math
import random
from typing import Any

from kusari_cv._typing import Array
from kusari_cv.transforms.image._check import check_chw


def _sample(
    h: int, w: int, scale_range: tuple[float, float], aspect_range: tuple[float, float]
) -> tuple[float, float]:
    scale_max = scale_range[1]
    aspect = 1.0
    for _ in range(10):
        aspect = random.uniform(*aspect_range)
        if random.uniform(0, 1) < 0.5:
            aspect = 1 / aspect
        # The largest scale for which the crop still fits in the image.
        scale_max = min(scale_range[1], h / (w * aspect), aspect * w / h)
        scale = random.uniform(*scale_range)
        if scale_range[0] <= scale <= scale_max:
            return scale, aspect
    # Ten misses: the range cannot be met for this aspect, so fall back to a
    # scale that fits (possibly below scale_range[0]).
    return random.uniform(min(scale_range[0], scale_max), scale_max), aspect


def random_sized_crop(
    img: Array,
    scale_ratio_range: tuple[float, float] = (0.08, 1),
    aspect_ratio_range: tuple[float, float] = (3 / 4, 4 / 3),
    return_param: bool = False,
    copy: bool = False,
) -> Any:
    """Crop a region whose area is ``s`` times the image's and whose
    height/width ratio is about ``a``.

    ``s ~ U(scale_ratio_range)``; ``a`` is ``b`` or ``1 / b`` (even odds) with
    ``b ~ U(aspect_ratio_range)``; the crop is
    ``floor(sqrt(s H W a)) x floor(sqrt(s H W / a))`` at a uniformly random
    position. After ten draws that do not fit, a smaller scale is used.
    Uses Python's ``random`` module.

    Args:
        img: A ``(C, H, W)`` image.
        scale_ratio_range: The range of ``s``.
        aspect_ratio_range: The range of ``b``.
        return_param: Also return ``{'y_slice', 'x_slice', 'scale_ratio',
            'aspect_ratio'}``.
        copy: Return a copy instead of a view.

    Returns:
        The crop, or ``(crop, param)``.
    """
    check_chw("random_sized_crop", img)
    _, h, w = img.shape
    scale, aspect = _sample(h, w, scale_ratio_range, aspect_ratio_range)
    crop_h = int(math.floor(math.sqrt(scale * h * w * aspect)))
    crop_w = int(math.floor(math.sqrt(scale * h * w / aspect)))
    y = random.randint(0, h - crop_h)
    x = random.randint(0, w - crop_w)
    y_slice, x_slice = slice(y, y + crop_h), slice(x, x + crop_w)
    out = img[:, y_slice, x_slice]
    if copy:
        out = out.copy()
    if return_param:
        param = {
            "y_slice": y_slice,
            "x_slice": x_slice,
            "scale_ratio": scale,
            "aspect_ratio": aspect,
        }
        return out, param
    return out
