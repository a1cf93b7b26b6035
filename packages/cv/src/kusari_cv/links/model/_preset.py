"""``use_preset`` of the detectors: thresholds by preset name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def apply_preset(
    link: Any, presets: Mapping[str, Mapping[str, Any]], preset: str
) -> None:
    """Set the attributes of ``presets[preset]`` (``nms_thresh``,
    ``score_thresh``, ...) on ``link``; an unknown ``preset`` raises a
    ValueError naming ``<link's class>.use_preset`` and the known ones."""
    if preset not in presets:
        raise ValueError(
            f"{type(link).__name__}.use_preset: expected one of "
            f"{sorted(presets)}, got {preset!r}"
        )
    for name, value in presets[preset].items():
        setattr(link, name, value)
