"""The PASCAL VOC color map."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


def voc_colormap(labels: Iterable[int]) -> np.ndarray:
    """Colors of the PASCAL VOC palette for the given label ids.

    The palette spreads the bits of a label id over the high bits of R, G and
    B (label 0 is black, 1 dark red, 2 dark green, ...), as in the VOC
    segmentation PNGs.

    Args:
        labels: Label ids (non-negative ints).

    Returns:
        A float32 array of shape ``(N, 3)`` with values in ``[0, 255]``.

    Example:
        >>> voc_colormap([0, 1, 2, 15]).tolist()
        [[0.0, 0.0, 0.0], [128.0, 0.0, 0.0], [0.0, 128.0, 0.0], [192.0, 128.0, 128.0]]
    """
    ids = np.asarray(list(labels), dtype=np.int64)
    colors = np.zeros((len(ids), 3), dtype=np.int64)
    rest = ids.copy()
    # Bit 3k (+1, +2) of the id becomes bit 7 - k of R (G, B).
    for shift in range(7, -1, -1):
        for channel in range(3):
            colors[:, channel] |= ((rest >> channel) & 1) << shift
        rest >>= 3
    return colors.astype(np.float32)
