"""Read an image file into a CHW array."""

from __future__ import annotations

from typing import IO, Any

import numpy as np
from PIL import Image

from kusari_cv import _config
from kusari_cv._typing import Array

_ALPHA = (None, "ignore", "blend_with_white", "blend_with_black")


def _handle_alpha(img: np.ndarray, alpha: str | None) -> np.ndarray:
    """Turn an HWC RGBA image into RGB as ``alpha`` asks."""
    if alpha is None:
        raise ValueError(
            "read_image: the image has an alpha channel (RGBA); pass alpha="
            "'ignore', 'blend_with_white' or 'blend_with_black' to say how to "
            "handle it"
        )
    rgb = img[:, :, :3]
    if alpha == "ignore":
        return rgb
    a = img[:, :, 3:].astype(np.float64) / 255
    if alpha == "blend_with_white":
        return rgb * a + 255 * (1 - a)
    return rgb * a


def _read_pil(file: Any, dtype: Any, color: bool, alpha: str | None) -> np.ndarray:
    with Image.open(file) as f:
        if color:
            img = np.asarray(f.convert("RGBA" if f.mode == "RGBA" else "RGB"))
        else:
            img = np.asarray(f.convert("L"))
    if img.ndim == 3 and img.shape[2] == 4:
        img = _handle_alpha(img, alpha)
    return img


def _read_cv2(file: Any, dtype: Any, color: bool, alpha: str | None) -> np.ndarray:
    import cv2  # optional dependency, imported only when chosen

    if hasattr(file, "read"):
        buf = np.frombuffer(file.read(), dtype=np.uint8)
    else:
        buf = np.fromfile(str(file), dtype=np.uint8)
    if not color:
        img = cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE)
    else:
        # Decode as stored first, to see an alpha channel (which IMREAD_COLOR
        # would silently drop); anything but 8-bit BGR(A) is decoded again
        # the standard way.
        img = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
        if img is not None and img.ndim == 3 and img.shape[2] == 4:
            if img.dtype == np.uint16:
                img = np.right_shift(img, 8).astype(np.uint8)
            return _handle_alpha(img[:, :, [2, 1, 0, 3]], alpha)
        if img is not None and (img.ndim != 3 or img.dtype != np.uint8):
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if img is None:
        raise ValueError(f"read_image: OpenCV could not decode {file!r}")
    if img.ndim == 2:
        return img
    return img[:, :, ::-1]  # BGR -> RGB


def read_image(
    file: str | IO[bytes] | Any,
    dtype: Any = np.float32,
    color: bool = True,
    alpha: str | None = None,
) -> Array:
    """Read an image into a CHW array with values in ``[0, 255]``.

    The backend is ``kusari.config.cv_read_image_backend``: ``'PIL'``,
    ``'cv2'`` (OpenCV, if installed), or None (the default: OpenCV when
    installed, else Pillow).

    Args:
        file: A path or a binary file-like object.
        dtype: The dtype of the returned array.
        color: True for a 3-channel RGB image, False for 1-channel grayscale.
        alpha: How an RGBA image is handled: None raises an error,
            ``'ignore'`` drops the alpha channel, ``'blend_with_white'`` and
            ``'blend_with_black'`` composite the image onto that background.

    Returns:
        An array of shape ``(3, H, W)`` (or ``(1, H, W)`` when ``color`` is
        False).
    """
    if alpha not in _ALPHA:
        raise ValueError(
            "read_image: alpha must be None, 'ignore', 'blend_with_white' or "
            f"'blend_with_black', got {alpha!r}"
        )
    if _config.backend("cv_read_image_backend", "read_image") == "cv2":
        img = _read_cv2(file, dtype, color, alpha)
    else:
        img = _read_pil(file, dtype, color, alpha)
    if img.ndim == 2:
        return img[None].astype(dtype)
    return img.transpose(2, 0, 1).astype(dtype)
