"""Read a label image (a 2D array of class ids)."""

from __future__ import annotations

from typing import IO, Any

import numpy as np
from PIL import Image

from kusari_cv._typing import Array


def read_label(file: str | IO[bytes] | Any, dtype: Any = np.int32) -> Array:
    """Read a single-channel label image (e.g. a palette PNG) as ``(H, W)``.

    Palette images give their palette indices, which is how segmentation data
    sets store class ids.

    Args:
        file: A path or a binary file-like object.
        dtype: The dtype of the returned array.

    Returns:
        An array of shape ``(H, W)``.

    Raises:
        ValueError: The image has color channels.
    """
    with Image.open(file) as f:
        if f.mode in ("RGB", "RGBA", "CMYK", "YCbCr", "LAB", "HSV"):
            raise ValueError(
                f"read_label: expected a single-channel (palette or grayscale) "
                f"image, got mode {f.mode!r}"
            )
        img = np.array(f, dtype=dtype)
    if img.ndim == 3:
        if img.shape[2] != 1:
            raise ValueError(
                f"read_label: expected a single-channel image, got shape {img.shape}"
            )
        img = img[:, :, 0]
    return img
