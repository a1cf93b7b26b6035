"""Score order for non-maximum suppression, fast and deterministic."""

from __future__ import annotations

import numpy as np


def descending(score: np.ndarray) -> np.ndarray:
    """Indices by decreasing score; among equal scores the later index first.

    That is ``np.argsort(score, kind="stable")[::-1]``. NumPy's stable sort
    of floats is a merge sort, several times slower than its default sort;
    for float32 scores the same order comes from the default sort of unique
    64-bit keys (the score's bits, made to sort like the float, above the
    index).
    """
    if score.dtype != np.float32 or len(score) >= 1 << 32 or np.isnan(score).any():
        return np.argsort(score, kind="stable")[::-1]
    # + 0.0 turns -0.0 into 0.0, which the float comparison treats as equal.
    bits = (score + np.float32(0.0)).view(np.uint32).astype(np.uint64)
    negative = bits >= 1 << 31
    # Flip all bits of negatives and the sign bit of the rest: the unsigned
    # order of the result is the float order.
    bits = np.where(negative, bits ^ 0xFFFFFFFF, bits | (1 << 31))
    keys = (bits << 32) | np.arange(len(score), dtype=np.uint64)
    # Keys are unique, so any sort gives the one order.
    return (np.sort(keys) & 0xFFFFFFFF).astype(np.int64)[::-1]
