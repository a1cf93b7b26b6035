"""The anchors of one feature-map cell (Faster R-CNN)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy

from kusari_cv._typing import Array


def generate_anchor_base(
    base_size: float = 16,
    ratios: Sequence[float] = (0.5, 1, 2),
    anchor_scales: Sequence[float] = (8, 16, 32),
) -> Array:
    """Anchors centered on a ``base_size`` cell for each ratio and scale.

    An anchor of ratio ``r`` and scale ``s`` has height
    ``base_size * s * sqrt(r)`` and width ``base_size * s * sqrt(1 / r)``;
    anchors are ordered ratio-major.

    Args:
        base_size: Side of the cell (the feature stride).
        ratios: Height-to-width ratios.
        anchor_scales: Side of the anchor in units of ``base_size``.

    Returns:
        float32 ``(len(ratios) * len(anchor_scales), 4)`` boxes
        ``(y_min, x_min, y_max, x_max)`` around ``(base_size / 2,) * 2``.

    Example:
        >>> generate_anchor_base(16, (1,), (1,))
        array([[ 0.,  0., 16., 16.]], dtype=float32)
    """
    py = px = base_size / 2.0
    anchor_base = numpy.zeros((len(ratios) * len(anchor_scales), 4), numpy.float32)
    for i, ratio in enumerate(ratios):
        for j, scale in enumerate(anchor_scales):
            h = base_size * scale * numpy.sqrt(ratio)
            w = base_size * scale * numpy.sqrt(1.0 / ratio)
            anchor_base[i * len(anchor_scales) + j] = (
                py - h / 2.0,
                px - w / 2.0,
                py + h / 2.0,
                px + w / 2.0,
            )
    return anchor_base
