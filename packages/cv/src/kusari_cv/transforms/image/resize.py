"""Resize an image with Pillow or OpenCV."""

from __future__ import annotations

from typing import Any

import numpy as np
from PIL import Image

from kusari_cv import _config
from kusari_cv._typing import Array
from kusari_cv.transforms.image._check import check_chw, check_size

_INTERPOLATIONS = (
    Image.Resampling.NEAREST,
    Image.Resampling.BILINEAR,
    Image.Resampling.BICUBIC,
    Image.Resampling.LANCZOS,
)


def _cv2_flag(interpolation: int) -> int:
    import cv2  # optional dependency, imported only when chosen

    return {
        Image.Resampling.NEAREST: cv2.INTER_NEAREST,
        Image.Resampling.BILINEAR: cv2.INTER_LINEAR,
        Image.Resampling.BICUBIC: cv2.INTER_CUBIC,
        Image.Resampling.LANCZOS: cv2.INTER_LANCZOS4,
    }[Image.Resampling(interpolation)]


def _resize_cv2(
    img: np.ndarray, size: tuple[int, int], interpolation: int
) -> np.ndarray:
    import cv2

    h, w = size
    # OpenCV takes HWC and at most 512 channels; resize in chunks of 4 so any
    # channel count works (OpenCV drops a singleton channel axis, hence the
    # reshape).
    hwc = np.ascontiguousarray(img.transpose(1, 2, 0))
    chunks = []
    for c in range(0, hwc.shape[2], 4):
        part = cv2.resize(
            hwc[:, :, c : c + 4], (w, h), interpolation=_cv2_flag(interpolation)
        )
        chunks.append(part.reshape(h, w, -1))
    return np.concatenate(chunks, axis=2).transpose(2, 0, 1)


def _resize_pil(
    img: np.ndarray, size: tuple[int, int], interpolation: int
) -> np.ndarray:
    h, w = size
    out = np.empty((img.shape[0], h, w), dtype=img.dtype)
    for src, dst in zip(img, out):
        # Mode 'F' (32-bit float) keeps values outside [0, 255] and fractions.
        channel = Image.fromarray(np.ascontiguousarray(src, dtype=np.float32))
        dst[:] = np.asarray(
            channel.resize((w, h), resample=Image.Resampling(interpolation))
        )
    return out


def resize(
    img: Array, size: tuple[int, int], interpolation: int = Image.Resampling.BILINEAR
) -> Array:
    """Resize a CHW image to ``size = (H, W)``.

    The backend is ``kusari.config.cv_resize_backend``: ``'PIL'``, ``'cv2'``
    or None (OpenCV when installed, else Pillow). The two agree closely but
    not bit for bit.

    Args:
        img: A ``(C, H_in, W_in)`` array (float32 is the usual dtype).
        size: The output ``(H, W)``.
        interpolation: ``PIL.Image.NEAREST``, ``BILINEAR`` (default),
            ``BICUBIC`` or ``LANCZOS``.

    Returns:
        A ``(C, H, W)`` array of the input's dtype.

    Example:
        >>> import numpy as np
        >>> resize(np.zeros((3, 4, 6), dtype=np.float32), (2, 3)).shape
        (3, 2, 3)
    """
    check_chw("resize", img)
    h, w = check_size("resize", size)
    if h < 1 or w < 1:
        raise ValueError(f"resize: size must be positive, got {(h, w)}")
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(
            "resize: interpolation must be PIL.Image.NEAREST, BILINEAR, BICUBIC "
            f"or LANCZOS, got {interpolation!r}"
        )
    if len(img) == 0:
        return np.empty((0, h, w), dtype=img.dtype)
    if _config.backend("cv_resize_backend", "resize") == "cv2":
        out: Any = _resize_cv2(img, (h, w), interpolation)
    else:
        out = _resize_pil(img, (h, w), interpolation)
    return out.astype(img.dtype, copy=False)
