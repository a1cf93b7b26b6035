"""The MS COCO evaluation protocol, written out in NumPy.

This follows ``pycocotools.cocoeval.COCOeval`` step for step (so its numbers
come out the same) without needing pycocotools:

* per image and class, detections are sorted by score (stable) and cut to the
  100 best; ground truths that are crowds or outside the area range are
  "ignored" and moved last;
* at each IoU threshold (0.50, 0.55, ..., 0.95), each detection takes the
  available ground truth it overlaps most (ties: the later one), preferring
  non-ignored ones; crowds can absorb any number of detections; a detection
  matched to an ignored ground truth, or unmatched and outside the area range,
  is ignored;
* per class, area range and detection limit, the detections of all images
  are merged by score (stable), and precision is read off the monotone
  envelope at 101 recall points.

``pycocotools`` then averages: a summary number is the mean over thresholds,
recall points and classes of the entries that exist (-1 marks none).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

IOU_THRESHS = np.linspace(0.5, 0.95, int(np.round((0.95 - 0.5) / 0.05)) + 1)
REC_THRESHS = np.linspace(0.0, 1.00, int(np.round((1.00 - 0.0) / 0.01)) + 1)
MAX_DETS = (1, 10, 100)
AREA_RANGES = ((0.0, 1e5**2), (0.0, 32.0**2), (32.0**2, 96.0**2), (96.0**2, 1e5**2))
AREA_LABELS = ("all", "small", "medium", "large")

# (key, is AP, IoU threshold or None for 0.50:0.95, area label, max dets)
_SUMMARIES = (
    ("ap/iou=0.50:0.95/area=all/max_dets=100", True, None, "all", 100),
    ("ap/iou=0.50/area=all/max_dets=100", True, 0.5, "all", 100),
    ("ap/iou=0.75/area=all/max_dets=100", True, 0.75, "all", 100),
    ("ap/iou=0.50:0.95/area=small/max_dets=100", True, None, "small", 100),
    ("ap/iou=0.50:0.95/area=medium/max_dets=100", True, None, "medium", 100),
    ("ap/iou=0.50:0.95/area=large/max_dets=100", True, None, "large", 100),
    ("ar/iou=0.50:0.95/area=all/max_dets=1", False, None, "all", 1),
    ("ar/iou=0.50:0.95/area=all/max_dets=10", False, None, "all", 10),
    ("ar/iou=0.50:0.95/area=all/max_dets=100", False, None, "all", 100),
    ("ar/iou=0.50:0.95/area=small/max_dets=100", False, None, "small", 100),
    ("ar/iou=0.50:0.95/area=medium/max_dets=100", False, None, "medium", 100),
    ("ar/iou=0.50:0.95/area=large/max_dets=100", False, None, "large", 100),
)

#: ``iou(dt, gt, gt_crowd) -> (D, G)`` on the geometry arrays of one class.
IouFn = Callable[[Any, Any, np.ndarray], np.ndarray]


@dataclass
class Image:
    """One image's predictions and ground truth, in the engine's terms."""

    pred: Any  # geometry indexable by an index array (boxes or masks)
    pred_label: np.ndarray
    pred_score: np.ndarray
    pred_area: np.ndarray
    gt: Any
    gt_label: np.ndarray
    gt_area: np.ndarray
    gt_crowd: np.ndarray


@dataclass
class _EvalImg:
    scores: np.ndarray  # (D,) sorted descending
    matched: np.ndarray  # (T, D) bool
    ignored: np.ndarray  # (T, D) bool
    gt_ignored: np.ndarray  # (G,) bool


def _match(
    ious: np.ndarray, gt_ignored: np.ndarray, crowd: np.ndarray, n_dt: int
) -> tuple[np.ndarray, np.ndarray]:
    """Greedy matching at every threshold at once; returns (matched, ignored)."""
    n_t, n_gt = len(IOU_THRESHS), len(gt_ignored)
    matched = np.zeros((n_t, n_dt), dtype=bool)
    ignored = np.zeros((n_t, n_dt), dtype=bool)
    if n_dt == 0 or n_gt == 0:
        return matched, ignored
    gt_taken = np.zeros((n_t, n_gt), dtype=bool)
    thresh = np.minimum(IOU_THRESHS, 1 - 1e-10)[:, None]
    regular = ~gt_ignored
    rows = np.arange(n_t)
    for d in range(n_dt):
        v = ious[d]
        ok = (~gt_taken | crowd) & (v >= thresh)  # (T, G)
        ok_regular = ok & regular
        # A regular ground truth, when one qualifies, beats any ignored one.
        cand = np.where(ok_regular.any(axis=1)[:, None], ok_regular, ok)
        found = cand.any(axis=1)
        if not found.any():
            continue
        # The best overlap; among equals the last one (COCOeval's `>=`).
        best = n_gt - 1 - np.where(cand, v, -np.inf)[:, ::-1].argmax(axis=1)
        t, m = rows[found], best[found]
        matched[t, d] = True
        ignored[t, d] = gt_ignored[m]
        gt_taken[t, m] = True
    return matched, ignored


def _evaluate_class(
    images: Sequence[Image], label: Any, iou: IouFn
) -> list[list[_EvalImg | None]]:
    """Per area range, per image: the matching of one class."""
    out: list[list[_EvalImg | None]] = [[] for _ in AREA_RANGES]
    for img in images:
        dt_idx = np.flatnonzero(img.pred_label == label)
        gt_idx = np.flatnonzero(img.gt_label == label)
        if len(dt_idx) == 0 and len(gt_idx) == 0:
            for per_area in out:
                per_area.append(None)
            continue
        order = np.argsort(-img.pred_score[dt_idx], kind="mergesort")
        dt_idx = dt_idx[order][: MAX_DETS[-1]]
        scores = img.pred_score[dt_idx]
        dt_area = img.pred_area[dt_idx].astype(np.float64)
        gt_area = img.gt_area[gt_idx].astype(np.float64)
        crowd = img.gt_crowd[gt_idx].astype(bool)
        if len(dt_idx) and len(gt_idx):
            ious = iou(img.pred[dt_idx], img.gt[gt_idx], crowd)
        else:
            ious = np.zeros((len(dt_idx), len(gt_idx)))
        for a, (lo, hi) in enumerate(AREA_RANGES):
            gt_ignored = crowd | (gt_area < lo) | (gt_area > hi)
            g_order = np.argsort(gt_ignored, kind="mergesort")
            gt_ignored = gt_ignored[g_order]
            matched, ignored = _match(
                ious[:, g_order], gt_ignored, crowd[g_order], len(dt_idx)
            )
            outside = (dt_area < lo) | (dt_area > hi)
            ignored |= ~matched & outside[None, :]
            out[a].append(_EvalImg(scores, matched, ignored, gt_ignored))
    return out


def _accumulate(
    per_area: list[list[_EvalImg | None]],
) -> tuple[np.ndarray, np.ndarray]:
    """Precision ``(T, R, A, M)`` and recall ``(T, A, M)`` of one class."""
    n_t, n_r = len(IOU_THRESHS), len(REC_THRESHS)
    precision = -np.ones((n_t, n_r, len(AREA_RANGES), len(MAX_DETS)))
    recall = -np.ones((n_t, len(AREA_RANGES), len(MAX_DETS)))
    for a, evals in enumerate(per_area):
        es = [e for e in evals if e is not None]
        if not es:
            continue
        n_pos = int(sum(np.count_nonzero(~e.gt_ignored) for e in es))
        if n_pos == 0:
            continue
        for m, max_det in enumerate(MAX_DETS):
            scores = np.concatenate([e.scores[:max_det] for e in es])
            order = np.argsort(-scores, kind="mergesort")
            matched = np.concatenate([e.matched[:, :max_det] for e in es], axis=1)
            ignored = np.concatenate([e.ignored[:, :max_det] for e in es], axis=1)
            matched, ignored = matched[:, order], ignored[:, order]
            tp = np.cumsum(matched & ~ignored, axis=1).astype(np.float64)
            fp = np.cumsum(~matched & ~ignored, axis=1).astype(np.float64)
            n_d = tp.shape[1]
            rc = tp / n_pos
            pr = tp / (fp + tp + np.spacing(1))
            recall[:, a, m] = rc[:, -1] if n_d else 0
            if n_d == 0:
                precision[:, :, a, m] = 0
                continue
            envelope = np.maximum.accumulate(pr[:, ::-1], axis=1)[:, ::-1]
            for t in range(n_t):
                idx = np.searchsorted(rc[t], REC_THRESHS, side="left")
                q = np.zeros(n_r)
                inside = idx < n_d
                q[inside] = envelope[t, idx[inside]]
                precision[t, :, a, m] = q
    return precision, recall


def _summarize(
    values: np.ndarray, iou_thresh: float | None
) -> tuple[np.ndarray, float]:
    """ChainerCV's per-class means (float32) and their mean over classes."""
    if iou_thresh is not None:
        values = values[IOU_THRESHS == iou_thresh]
    values = values.astype(np.float64, copy=True)
    values[values == -1] = np.nan
    values = values.reshape(int(np.prod(values.shape[:-1])), values.shape[-1])
    valid = ~np.isnan(values).all(axis=0)
    per_class = np.full(values.shape[1], np.nan, dtype=np.float32)
    per_class[valid] = np.nanmean(values[:, valid], axis=0)
    mean = float(np.nanmean(per_class)) if valid.any() else float("nan")
    return per_class, mean


def evaluate(
    images: Sequence[Image], labels: Sequence[Any], iou: IouFn, with_areas: bool
) -> dict[str, Any]:
    """Run the protocol; ``labels`` are the sorted classes present."""
    n_k = len(labels)
    precision = -np.ones((len(IOU_THRESHS), len(REC_THRESHS), n_k, 4, 3))
    recall = -np.ones((len(IOU_THRESHS), n_k, 4, 3))
    for k, label in enumerate(labels):
        per_area = _evaluate_class(images, label, iou)
        precision[:, :, k], recall[:, k] = _accumulate(per_area)

    results: dict[str, Any] = {}
    size = int(max(labels)) + 1 if n_k else 0
    label_idx = np.asarray(labels, dtype=np.int64)
    for key, is_ap, iou_thresh, area, max_det in _SUMMARIES:
        if area != "all" and not with_areas:
            continue
        a, m = AREA_LABELS.index(area), MAX_DETS.index(max_det)
        if is_ap:
            values = precision[:, :, :, a, m]
        else:
            values = recall[:, :, a, m]
        per_class, mean = _summarize(values, iou_thresh)
        full = np.full(size, np.nan)
        full[label_idx] = per_class
        results[key] = full
        results["m" + key] = mean
    results["existent_labels"] = label_idx
    return results
