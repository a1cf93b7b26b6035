"""CPU non-maximum suppression for crowded boxes: a few kept boxes at a time.

The best remaining boxes (a handful, ``_HEADS``) are resolved among
themselves, and every remaining box that a kept one overlaps by IoU ``>= t``
is dropped, in one vectorised IoU of the heads against what remains. The cost
is about (number kept) x (number remaining), which is small when most boxes
are suppressed early, as with region proposals clustered on a few objects.
"""

from __future__ import annotations

import numpy as np

# Boxes resolved per step: amortises the per-step overhead; heads that turn
# out suppressed waste a row each.
_HEADS = 16
# Give up once this many are kept while more than a quarter of the boxes
# remain: the boxes are spread out and the pair graph is cheaper.
GIVE_UP_KEPT = 48


def scan(
    bbox: np.ndarray, area: np.ndarray, thresh: float, limit: int | None
) -> np.ndarray | None:
    """Kept positions (boxes in score order), or None when giving up."""
    n = len(bbox)
    # Rows y_min, x_min, y_max, x_max, area: one compaction per step.
    rest = np.concatenate((bbox.T, area[None]), axis=0)
    idx = np.arange(n)
    kept: list[int] = []
    while len(idx):
        if len(kept) > GIVE_UP_KEPT and 4 * len(idx) > n:
            return None
        k = min(_HEADS, len(idx))
        hy0, hx0, hy1, hx1, ha = (r[:, None] for r in rest[:, :k])
        oy0, ox0, oy1, ox1, oa = rest
        # The same operations as the dense IoU, so the same rounding.
        h = np.minimum(oy1, hy1)
        h -= np.maximum(oy0, hy0)
        np.maximum(h, 0, out=h)
        w = np.minimum(ox1, hx1)
        w -= np.maximum(ox0, hx0)
        np.maximum(w, 0, out=w)
        h *= w
        union = oa + ha
        union -= h
        with np.errstate(divide="ignore", invalid="ignore"):
            h /= union
        # ">= thresh" so that a nan IoU (two empty boxes) suppresses nothing.
        over = h >= thresh  # (k, remaining); column j is remaining box j
        heads = np.ones(k, dtype=bool)
        for i in range(k):
            if heads[i]:
                kept.append(int(idx[i]))
                if limit is not None and len(kept) >= limit:
                    return np.asarray(kept, dtype=np.int64)
                heads[i + 1 :] &= ~over[i, i + 1 : k]
        survivors = np.flatnonzero(~over[heads, k:].any(axis=0))
        rest = rest[:, k:].take(survivors, axis=1)
        idx = idx[k:].take(survivors)
    return np.asarray(kept, dtype=np.int64)
