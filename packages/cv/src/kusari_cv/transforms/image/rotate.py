"""Rotate an image by any angle."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from PIL import Image

from kusari_cv import _config
from kusari_cv._typing import Array
from kusari_cv.transforms.image._check import check_chw


def _rotate_pil(
    img: np.ndarray, angle: float, expand: bool, fill: float, interpolation: int
) -> np.ndarray:
    out = []
    for channel in img:
        pil = Image.fromarray(np.ascontiguousarray(channel, dtype=np.float32))
        pil = pil.rotate(
            angle,
            resample=Image.Resampling(interpolation),
            expand=expand,
            fillcolor=fill,
        )
        out.append(np.asarray(pil))
    return np.stack(out)


def _rotate_cv2(
    img: np.ndarray, angle: float, expand: bool, fill: float, interpolation: int
) -> np.ndarray:
    import cv2  # optional dependency, imported only when chosen

    flag = {
        Image.Resampling.NEAREST: cv2.INTER_NEAREST,
        Image.Resampling.BILINEAR: cv2.INTER_LINEAR,
        Image.Resampling.BICUBIC: cv2.INTER_CUBIC,
    }[Image.Resampling(interpolation)]
    _, h, w = img.shape
    if expand:
        # The bounding box of the rotated image's corners, rounded outwards
        # the way Pillow rounds it, so both backends give the same size.
        rad = math.radians(angle)
        cos, sin = math.cos(rad), math.sin(rad)
        xs, ys = [], []
        for x, y in (
            (-w / 2, -h / 2),
            (w / 2, -h / 2),
            (w / 2, h / 2),
            (-w / 2, h / 2),
        ):
            xs.append(w / 2 + x * cos + y * sin)
            ys.append(h / 2 - x * sin + y * cos)
        out_w = math.ceil(max(xs)) - math.floor(min(xs))
        out_h = math.ceil(max(ys)) - math.floor(min(ys))
    else:
        out_h, out_w = h, w
    # Rotate about the input's center, then move that center to the output's.
    mat = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), angle, 1.0)
    mat[0, 2] += (out_w - w) / 2
    mat[1, 2] += (out_h - h) / 2
    out = [
        cv2.warpAffine(
            np.ascontiguousarray(c, dtype=np.float32),
            mat,
            (out_w, out_h),
            flags=flag,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=fill,
        )
        for c in img
    ]
    return np.stack(out)


def rotate(
    img: Array,
    angle: float,
    expand: bool = True,
    fill: float = 0,
    interpolation: int = Image.Resampling.BILINEAR,
) -> Array:
    """Rotate a CHW image counter-clockwise by ``angle`` degrees.

    Multiples of 90 degrees are exact (no resampling). Other angles use
    ``kusari.config.cv_rotate_backend`` (``'PIL'``, ``'cv2'`` or None: OpenCV
    when installed).

    Args:
        img: A ``(C, H, W)`` image.
        angle: Degrees, counter-clockwise.
        expand: Enlarge the output to hold the whole rotated image; otherwise
            keep ``(H, W)`` and cut the corners.
        fill: The value of pixels from outside the input.
        interpolation: ``PIL.Image.NEAREST``, ``BILINEAR`` or ``BICUBIC``.

    Returns:
        The rotated image, of the input's dtype.
    """
    check_chw("rotate", img)
    if interpolation not in (
        Image.Resampling.NEAREST,
        Image.Resampling.BILINEAR,
        Image.Resampling.BICUBIC,
    ):
        raise ValueError(
            "rotate: interpolation must be PIL.Image.NEAREST, BILINEAR or "
            f"BICUBIC, got {interpolation!r}"
        )
    if angle % 90 == 0 and (expand or angle % 180 == 0 or img.shape[1] == img.shape[2]):
        return np.rot90(img, int(angle // 90) % 4, axes=(1, 2)).copy()
    if _config.backend("cv_rotate_backend", "rotate") == "cv2":
        out: Any = _rotate_cv2(img, angle, expand, fill, interpolation)
    else:
        out = _rotate_pil(img, angle, expand, fill, interpolation)
    return out.astype(img.dtype, copy=False)
