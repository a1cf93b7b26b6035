"""Greedy non-maximum suppression without a Python loop over boxes.

On the CPU with a positive threshold, crowded boxes are scanned a few kept
boxes at a time (``_nms_scan``) and spread-out ones go through the sparse graph of
overlapping pairs, found by sorting (``_nms_pairs``). Otherwise (CuPy, a
threshold <= 0, pairs too many for memory) boxes are taken in score order and
resolved in blocks. A block is first screened against every box already kept
(one vectorised IoU), then the survivors are resolved among themselves from
the block's own IoU matrix. Only that last step is sequential, and it touches
only boxes that overlap a later box in the block, with one vector operation
each.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import kusari
from kusari_cv._typing import Array
from kusari_cv.utils.bbox import _nms_pairs, _nms_scan, _order
from kusari_cv.utils.bbox._check import check_bbox

# Boxes resolved per block: the block's IoU matrix stays within ~1M entries.
_BLOCK = 1024


def _iou_matrix(xp: Any, a: Array, area_a: Array, b: Array, area_b: Array) -> Array:
    h = xp.minimum(a[:, None, 2], b[None, :, 2])
    h -= xp.maximum(a[:, None, 0], b[None, :, 0])
    xp.maximum(h, 0, out=h)
    w = xp.minimum(a[:, None, 3], b[None, :, 3])
    w -= xp.maximum(a[:, None, 1], b[None, :, 1])
    xp.maximum(w, 0, out=w)
    h *= w
    union = area_a[:, None] + area_b[None, :]
    union -= h
    with np.errstate(divide="ignore", invalid="ignore"):
        h /= union
    return h


def _resolve_block(xp: Any, over: Array) -> Array:
    """Greedy keep mask of a block given ``over[i, j]`` (i earlier, j later)."""
    if xp is np:
        # Exact sequential greedy, skipping boxes that overlap nothing later:
        # they cannot suppress anyone.
        keep = np.ones(len(over), dtype=bool)
        for i in np.flatnonzero(over.any(axis=1)).tolist():
            if keep[i]:
                keep &= ~over[i]
        return keep
    # On a GPU a per-box loop would sync every step. The greedy mask is the
    # unique fixed point of ``keep[j] = not any(keep[i] and over[i, j])``
    # (each entry depends only on earlier ones), so iterate the whole map
    # until it stops changing; after k rounds the first k entries are final.
    over_f = over.astype(np.float32)
    keep = xp.ones(len(over), dtype=bool)
    for _ in range(len(over)):
        new = (keep.astype(np.float32) @ over_f) == 0
        if bool((new == keep).all()):
            break
        keep = new
    return keep


def _blocked(
    xp: Any,
    bbox: Array,
    area: Array,
    thresh: float,
    limit: int | None,
) -> Array:
    """Kept positions (in the given order) by blocks of :data:`_BLOCK` boxes."""
    n = len(bbox)
    kept: list[Array] = []
    kept_bbox = bbox[:0]
    kept_area = area[:0]
    n_kept = 0
    for start in range(0, n, _BLOCK):
        blk = bbox[start : start + _BLOCK]
        blk_area = area[start : start + _BLOCK]
        if n_kept:
            iou = _iou_matrix(xp, kept_bbox, kept_area, blk, blk_area)
            cand = xp.flatnonzero(~(iou >= thresh).any(axis=0))
        else:
            cand = xp.arange(len(blk))
        if len(cand) == 0:
            continue
        sub, sub_area = blk[cand], blk_area[cand]
        over = _iou_matrix(xp, sub, sub_area, sub, sub_area) >= thresh
        over = xp.triu(over, k=1)
        new = cand[_resolve_block(xp, over)]
        kept.append(new + start)
        kept_bbox = xp.concatenate((kept_bbox, blk[new]))
        kept_area = xp.concatenate((kept_area, blk_area[new]))
        n_kept += len(new)
        if limit is not None and n_kept >= limit:
            break
    return xp.concatenate(kept) if kept else xp.zeros((0,), dtype=np.int64)


def non_maximum_suppression(
    bbox: Array,
    thresh: float,
    score: Array | None = None,
    limit: int | None = None,
) -> Array:
    """Suppress boxes that overlap a higher-scored kept box.

    Boxes are visited from the highest score down (in the given order when
    ``score`` is None; among equal scores, the later box first); a box is
    kept unless its IoU with an already kept box is ``>= thresh``.

    Args:
        bbox: Boxes of shape ``(R, 4)``, ``(y_min, x_min, y_max, x_max)``.
        thresh: The IoU at or above which a box is suppressed.
        score: Scores of shape ``(R,)``, or None.
        limit: Keep at most this many boxes.

    Returns:
        The int32 indices of the kept boxes, highest score first.

    Example:
        >>> import numpy as np
        >>> bbox = np.array([[0, 0, 10, 10], [1, 1, 10, 10], [20, 20, 30, 30]],
        ...                 dtype=np.float32)
        >>> score = np.array([0.5, 0.9, 0.1], dtype=np.float32)
        >>> non_maximum_suppression(bbox, 0.5, score).tolist()
        [1, 2]
    """
    check_bbox("non_maximum_suppression", bbox)
    xp = kusari.backend.get_array_module(bbox)
    n = len(bbox)
    order = None
    if score is not None:
        if score.shape != (n,):
            raise ValueError(
                f"non_maximum_suppression: score must have shape ({n},) to "
                f"match bbox, got {score.shape}"
            )
        # Descending; tied scores latest index first, as ChainerCV's
        # argsort()[::-1] orders them (on NumPy 1.x, for small arrays) but
        # deterministic on any NumPy. CuPy's sort is always stable.
        order = _order.descending(score) if xp is np else score.argsort()[::-1]
        bbox = bbox[order]
    if n == 0 or (limit is not None and limit <= 0):
        return xp.zeros((0,), dtype=np.int32)
    if bbox.dtype.kind != "f":
        bbox = bbox.astype(np.float64)

    area = (bbox[:, 2] - bbox[:, 0]) * (bbox[:, 3] - bbox[:, 1])
    selec = None
    if xp is np and thresh > 0:
        # Few survivors (crowded boxes, e.g. region proposals): a scan over
        # the kept boxes is cheapest. Many (spread-out boxes): the sparse
        # graph of overlapping pairs.
        selec = _nms_scan.scan(bbox, area, thresh, limit)
        if selec is None:
            pairs = _nms_pairs.candidate_pairs(bbox, thresh)
            if pairs is not None:
                a, b = pairs
                hit = _nms_pairs.pair_iou(bbox, area, a, b) >= thresh
                a, b = a[hit], b[hit]
                keep = _nms_pairs.greedy_keep(n, np.minimum(a, b), np.maximum(a, b))
                selec = np.flatnonzero(keep)
    if selec is None:
        selec = _blocked(xp, bbox, area, thresh, limit)
    if limit is not None:
        selec = selec[:limit]
    if order is not None:
        selec = order[selec]
    return selec.astype(np.int32)
