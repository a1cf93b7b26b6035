"""Data augmentation of SSD's training: photometric distortion and crops.

Randomness comes from Python's :mod:`random` (as in ChainerCV), so seeding it
makes a pipeline reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy
from PIL import Image

from kusari_cv import transforms
from kusari_cv._typing import Array
from kusari_cv.utils.bbox.bbox_iou import bbox_iou


def _rgb_to_hsv(rgb: Array) -> tuple[Array, Array, Array]:
    # rgb: (3, H, W) in [0, 255]; h in degrees [0, 360), s in [0, 1], v in [0, 255]
    r, g, b = rgb
    v = rgb.max(axis=0)
    c = v - rgb.min(axis=0)
    safe_c = numpy.where(c > 0, c, 1)
    h = numpy.where(
        v == r,
        ((g - b) / safe_c) % 6,
        numpy.where(v == g, (b - r) / safe_c + 2, (r - g) / safe_c + 4),
    )
    h = numpy.where(c > 0, h * 60, 0)
    s = numpy.where(v > 0, c / numpy.where(v > 0, v, 1), 0)
    return h, s, v


def _hsv_to_rgb(h: Array, s: Array, v: Array) -> Array:
    c = v * s
    hp = (h % 360) / 60
    x = c * (1 - numpy.abs(hp % 2 - 1))
    zero = numpy.zeros_like(c)
    sector = numpy.floor(hp).astype(numpy.int64) % 6
    table = [(c, x, zero), (x, c, zero), (zero, c, x), (zero, x, c), (x, zero, c)]
    table.append((c, zero, x))
    rgb = numpy.empty((3,) + c.shape, dtype=numpy.float64)
    for ch in range(3):
        rgb[ch] = numpy.choose(sector, [row[ch] for row in table])
    return rgb + (v - c)


def random_distort(
    img: Array,
    brightness_delta: float = 32,
    contrast_low: float = 0.5,
    contrast_high: float = 1.5,
    saturation_low: float = 0.5,
    saturation_high: float = 1.5,
    hue_delta: float = 18,
) -> Array:
    """Randomly change brightness, contrast, saturation and hue.

    Each change is applied with probability 1/2: brightness first, then
    contrast before or after the saturation and hue changes (also 1/2).
    Values are clipped to ``[0, 255]`` after each step.

    Args:
        img: CHW RGB image with values in ``[0, 255]``.
        brightness_delta: Largest value added to every pixel.
        contrast_low: Smallest contrast factor.
        contrast_high: Largest contrast factor.
        saturation_low: Smallest saturation factor.
        saturation_high: Largest saturation factor.
        hue_delta: Largest hue shift, in OpenCV's hue units (2 degrees).

    Returns:
        The distorted float32 image.
    """
    if getattr(img, "ndim", None) != 3 or img.shape[0] != 3:
        raise ValueError(
            "random_distort: expected a (3, H, W) RGB image, got shape "
            f"{getattr(img, 'shape', None)}"
        )
    out = numpy.asarray(img, dtype=numpy.float64)

    def clip(x: Array) -> Array:
        return numpy.clip(x, 0, 255)

    if random.randrange(2):
        out = clip(out + random.uniform(-brightness_delta, brightness_delta))

    def contrast(x: Array) -> Array:
        if random.randrange(2):
            x = clip(x * random.uniform(contrast_low, contrast_high))
        return x

    def saturation_hue(x: Array) -> Array:
        change_s = random.randrange(2)
        s_factor = random.uniform(saturation_low, saturation_high)
        change_h = random.randrange(2)
        shift = random.uniform(-hue_delta, hue_delta) * 2
        if not (change_s or change_h):
            return x
        h, s, v = _rgb_to_hsv(x)
        if change_s:
            s = numpy.clip(s * s_factor, 0, 1)
        if change_h:
            h = h + shift
        return clip(_hsv_to_rgb(h, s, v))

    if random.randrange(2):
        out = saturation_hue(contrast(out))
    else:
        out = contrast(saturation_hue(out))
    return out.astype(numpy.float32)


def random_crop_with_bbox_constraints(
    img: Array,
    bbox: Array,
    min_scale: float = 0.3,
    max_scale: float = 1,
    max_aspect_ratio: float = 2,
    constraints: Sequence[tuple[float | None, float | None]] | None = None,
    max_trial: int = 50,
    return_param: bool = False,
) -> Any:
    """Crop a random window whose IoU with every box meets a constraint.

    The candidates are the whole image and, for each ``(min_iou, max_iou)``
    constraint, the first of ``max_trial`` random windows (scale in
    ``[min_scale, max_scale]``, aspect ratio up to ``max_aspect_ratio``)
    whose IoU with all boxes lies in ``[min_iou, max_iou]``; one candidate is
    chosen uniformly. This is SSD's sampling.

    Args:
        img: CHW image.
        bbox: ``(R, 4)`` boxes.
        min_scale: Smallest side ratio of the window.
        max_scale: Largest side ratio of the window.
        max_aspect_ratio: Largest aspect ratio of the window.
        constraints: ``(min_iou, max_iou)`` pairs (None is unbounded).
        max_trial: Windows tried per constraint.
        return_param: Also return ``{'constraint', 'y_slice', 'x_slice'}``.

    Returns:
        The cropped image, and the parameters when ``return_param``.
    """
    if constraints is None:
        constraints = (
            (0.1, None),
            (0.3, None),
            (0.5, None),
            (0.7, None),
            (0.9, None),
            (None, 1),
        )
    _, H, W = img.shape
    params: list[dict[str, Any]] = [
        {"constraint": None, "y_slice": slice(0, H), "x_slice": slice(0, W)}
    ]
    if len(bbox) == 0:
        constraints = ()
    for min_iou, max_iou in constraints:
        lo = 0.0 if min_iou is None else min_iou
        hi = 1.0 if max_iou is None else max_iou
        for _ in range(max_trial):
            scale = random.uniform(min_scale, max_scale)
            ar = random.uniform(
                max(1 / max_aspect_ratio, scale * scale),
                min(max_aspect_ratio, 1 / (scale * scale)),
            )
            crop_h = int(H * scale / numpy.sqrt(ar))
            crop_w = int(W * scale * numpy.sqrt(ar))
            if crop_h < 1 or crop_w < 1 or crop_h > H or crop_w > W:
                continue
            top = random.randrange(H - crop_h + 1)
            left = random.randrange(W - crop_w + 1)
            window = numpy.array(
                [[top, left, top + crop_h, left + crop_w]], dtype=numpy.float32
            )
            iou = bbox_iou(numpy.asarray(bbox, dtype=numpy.float32), window)
            if lo <= iou.min() and iou.max() <= hi:
                params.append(
                    {
                        "constraint": (min_iou, max_iou),
                        "y_slice": slice(top, top + crop_h),
                        "x_slice": slice(left, left + crop_w),
                    }
                )
                break
    param = random.choice(params)
    img = img[:, param["y_slice"], param["x_slice"]]
    if return_param:
        return img, param
    return img


_INTERPOLATIONS = (
    Image.Resampling.NEAREST,
    Image.Resampling.BILINEAR,
    Image.Resampling.BICUBIC,
    Image.Resampling.LANCZOS,
)


def resize_with_random_interpolation(
    img: Array, size: tuple[int, int], return_param: bool = False
) -> Any:
    """Resize ``img`` to ``size`` (H, W) with a randomly chosen interpolation.

    Returns:
        The resized image, and ``{'interpolation': ...}`` when
        ``return_param``.
    """
    interpolation = random.choice(_INTERPOLATIONS)
    out = transforms.resize(img, size, interpolation=interpolation)
    if return_param:
        return out, {"interpolation": interpolation}
    return out
