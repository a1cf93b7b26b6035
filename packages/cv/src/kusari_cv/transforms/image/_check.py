"""Shape checks shared by the image transforms."""

from __future__ import annotations

from typing import Any


def check_chw(function: str, img: Any) -> None:
    """Raise ``ValueError`` unless ``img`` is a ``(C, H, W)`` array."""
    if getattr(img, "ndim", None) != 3:
        raise ValueError(
            f"{function}: img must have shape (C, H, W), got "
            f"{getattr(img, 'shape', type(img).__name__)}"
        )


def check_size(function: str, size: Any, name: str = "size") -> tuple[int, int]:
    """Return ``size`` as ``(H, W)`` ints, or raise ``ValueError``."""
    try:
        h, w = size
    except (TypeError, ValueError):
        raise ValueError(f"{function}: {name} must be (H, W), got {size!r}") from None
    return int(h), int(w)
