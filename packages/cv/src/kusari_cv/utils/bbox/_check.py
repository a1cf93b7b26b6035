"""Shape checks shared by the box utilities."""

from __future__ import annotations

from typing import Any


class BboxShapeError(ValueError, IndexError):
    """A box array of the wrong shape.

    Both a ``ValueError`` (it is a bad argument) and an ``IndexError`` (what
    ChainerCV raises, so code catching that keeps working).
    """


def check_bbox(function: str, bbox: Any, name: str = "bbox") -> None:
    """Raise :class:`BboxShapeError` unless ``bbox`` has shape ``(R, 4)``."""
    shape = getattr(bbox, "shape", None)
    if shape is None or len(shape) != 2 or shape[1] != 4:
        raise BboxShapeError(f"{function}: {name} must have shape (R, 4), got {shape}")
