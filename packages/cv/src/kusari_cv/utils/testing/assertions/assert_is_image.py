"""Check that an array is a CHW image."""

from __future__ import annotations

import numpy as np

from kusari_cv._typing import Array


def assert_is_image(img: Array, color: bool = True, check_range: bool = True) -> None:
    """Raise ``AssertionError`` unless ``img`` is a ``(C, H, W)`` image.

    Args:
        img: The array to check.
        color: Expect 3 channels (True) or 1 (False).
        check_range: Also check that values lie in ``[0, 255]``.
    """
    assert isinstance(img, np.ndarray), f"img must be a numpy.ndarray, got {type(img)}"
    assert img.ndim == 3, f"img must have shape (C, H, W), got {img.shape}"
    n = 3 if color else 1
    assert img.shape[0] == n, f"img must have {n} channel(s), got shape {img.shape}"
    if check_range and img.size:
        assert img.min() >= 0 and img.max() <= 255, (
            f"img values must lie in [0, 255], got [{img.min()}, {img.max()}]"
        )
