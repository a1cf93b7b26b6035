"""Shape checks shared by the mask utilities."""

from __future__ import annotations

from typing import Any


def check_mask(function: str, mask: Any, name: str = "mask") -> None:
    """Raise ``ValueError`` unless ``mask`` has shape ``(R, H, W)``."""
    shape = getattr(mask, "shape", None)
    if shape is None or len(shape) != 3:
        raise ValueError(f"{function}: {name} must have shape (R, H, W), got {shape}")
