"""CPU non-maximum suppression through the sparse graph of overlapping pairs.

Two boxes can reach IoU ``t > 0`` only if their intersection is at least
``t`` times as wide as either box (IoU <= intersection width / box width),
so along the x axis the later-starting box must start within the first
``(1 - t)`` of the earlier one's width, and likewise along y. Sorting by
``x_min`` turns the first condition into a window per box, which lists the
candidate pairs without ever forming the dense ``R x R`` matrix; the y
condition and then the exact IoU thin them out to the "suppresses" edges.

The greedy result is then the unique fixed point of
``keep[j] = not any(keep[i] for edges i -> j)`` (edges run from higher to
lower score), reached by whole-array iterations; a sequential pass finishes
the rare long chains.
"""

from __future__ import annotations

import numpy as np

# Relative slack on the window bounds: float rounding must never drop a pair
# whose computed IoU reaches the threshold.
_SLACK = 1e-5
# Above this many candidate pairs the caller uses the blocked dense method.
MAX_PAIRS = 12_000_000
_CHUNK = 1 << 18


def candidate_pairs(
    bbox: np.ndarray, thresh: float
) -> tuple[np.ndarray, np.ndarray] | None:
    """Index pairs (into ``bbox``) that may overlap by IoU ``>= thresh``, or
    None when there are more than :data:`MAX_PAIRS`."""
    n = len(bbox)
    xo = np.argsort(bbox[:, 1], kind="stable")
    # Contiguous per-coordinate arrays in x order: the pair filter gathers
    # from them millions of times.
    y0, x0, y1, x1 = (
        np.ascontiguousarray(bbox[xo, i], dtype=np.float64) for i in range(4)
    )
    reach = x0 + (1 - thresh) * (x1 - x0)
    reach += _SLACK * (np.abs(reach) + 1)
    hi = np.searchsorted(x0, reach, side="right")
    counts = np.maximum(hi - np.arange(1, n + 1), 0)
    if int(counts.sum()) > MAX_PAIRS:
        return None
    # A cheap first cut on y_min: it can differ by at most (1 - t) times the
    # taller box's height, hence by (1 - t) times the tallest height.
    y_window = (1 - thresh) * float(np.max(y1 - y0, initial=0))
    y_window += _SLACK * (y_window + float(np.max(np.abs(y0), initial=0)) + 1)
    ends = np.cumsum(counts)
    out_a, out_b = [], []
    # Chunks of about _CHUNK pairs keep the temporaries in cache.
    lo = 0
    while lo < n:
        hi_box = int(np.searchsorted(ends, ends[lo] - counts[lo] + _CHUNK, "right"))
        hi_box = max(hi_box, lo + 1)
        c = counts[lo:hi_box]
        total = int(c.sum())
        if total:
            # Partners of sorted position p are p + 1 .. p + counts[p].
            a = np.repeat(np.arange(lo, hi_box), c)
            b = np.arange(total) - np.repeat(np.cumsum(c) - c, c) + a + 1
            near = np.abs(np.repeat(y0[lo:hi_box], c) - y0[b]) <= y_window
            a, b = a[near], b[near]
            # The exact bounds: the intersection is at least t times as wide
            # as the wider box and t times as tall as the taller one.
            w_int = np.minimum(x1[a], x1[b]) - x0[b]
            h_int = np.minimum(y1[a], y1[b]) - np.maximum(y0[a], y0[b])
            need_w = thresh * np.maximum(x1[a] - x0[a], x1[b] - x0[b])
            need_h = thresh * np.maximum(y1[a] - y0[a], y1[b] - y0[b])
            ok = (w_int >= need_w - _SLACK * (need_w + 1)) & (
                h_int >= need_h - _SLACK * (need_h + 1)
            )
            out_a.append(a[ok])
            out_b.append(b[ok])
        lo = hi_box
    if not out_a:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    return xo[np.concatenate(out_a)], xo[np.concatenate(out_b)]


def pair_iou(
    bbox: np.ndarray, area: np.ndarray, a: np.ndarray, b: np.ndarray
) -> np.ndarray:
    """IoU of the pairs ``(bbox[a[k]], bbox[b[k]])``, in the boxes' dtype and
    with the same operations as the dense IoU (so the same rounding)."""
    p, q = bbox[a], bbox[b]
    h = np.minimum(p[:, 2], q[:, 2]) - np.maximum(p[:, 0], q[:, 0])
    w = np.minimum(p[:, 3], q[:, 3]) - np.maximum(p[:, 1], q[:, 1])
    inter = np.maximum(h, 0) * np.maximum(w, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return inter / (area[a] + area[b] - inter)


def greedy_keep(n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Greedy keep mask over boxes ``0..n-1`` (score order) given the edges
    "``src`` suppresses ``dst`` if kept" (``src < dst``)."""
    keep = np.ones(n, dtype=bool)
    if len(src) == 0:
        return keep
    for _ in range(16):
        new = np.ones(n, dtype=bool)
        new[dst[keep[src]]] = False
        if np.array_equal(new, keep):
            return keep
        keep = new
    # A long chain of overlaps: finish sequentially, source by source.
    order = np.argsort(src, kind="stable")
    src, dst = src[order], dst[order]
    sources, first = np.unique(src, return_index=True)
    bounds = np.append(first, len(src))
    keep = np.ones(n, dtype=bool)
    for k, s in enumerate(sources.tolist()):
        if keep[s]:
            keep[dst[bounds[k] : bounds[k + 1]]] = False
    return keep
