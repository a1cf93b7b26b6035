"""PASCAL VOC-style matching shared by box and mask evaluation.

Per image and class, predictions are taken from the highest score down; each
is matched to the ground truth it overlaps most. It is a true positive if
that overlap is at least the threshold and the ground truth was not matched
before, a false positive otherwise, and neither when the ground truth is
"difficult". The per-class lists of scores and outcomes are then sorted by
score across the data set into precision/recall curves.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

_MISSING = object()
_Iou = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _descending(score: np.ndarray) -> np.ndarray:
    """Indices by decreasing score; among ties the later one first.

    ChainerCV sorts with ``argsort()[::-1]``, whose order of ties is NumPy's
    choice: on NumPy 1.x it is this one for arrays of up to 16 elements (the
    usual size per image and class) and unspecified beyond. A stable sort
    gives the same there, and the same on every NumPy.
    """
    return np.argsort(score, kind="stable")[::-1]


def voc_prec_rec(
    function: str,
    preds: Iterable[Any],
    pred_labels: Iterable[Any],
    pred_scores: Iterable[Any],
    gts: Iterable[Any],
    gt_labels: Iterable[Any],
    gt_difficults: Iterable[Any] | None,
    iou: _Iou,
    iou_thresh: float,
) -> tuple[list[np.ndarray | None], list[np.ndarray | None]]:
    """Precision and recall per class; see :func:`calc_detection_voc_prec_rec`."""
    iters = [iter(x) for x in (preds, pred_labels, pred_scores, gts, gt_labels)]
    if gt_difficults is not None:
        iters.append(iter(gt_difficults))
    n_pos: dict[int, int] = defaultdict(int)
    scores: dict[int, list[np.ndarray]] = defaultdict(list)
    matches: dict[int, list[np.ndarray]] = defaultdict(list)
    for sample in itertools.zip_longest(*iters, fillvalue=_MISSING):
        if any(v is _MISSING for v in sample):
            raise ValueError(
                f"{function}: all the input iterables must have the same length"
            )
        pred, pred_label, pred_score, gt, gt_label = sample[:5]
        difficult = sample[5] if gt_difficults is not None else None
        pred_label = np.asarray(pred_label)
        gt_label = np.asarray(gt_label)
        pred_score = np.asarray(pred_score)
        if difficult is None:
            difficult = np.zeros(len(gt_label), dtype=bool)
        difficult = np.asarray(difficult, dtype=bool)
        if not (len(pred) == len(pred_label) == len(pred_score)):
            raise ValueError(
                f"{function}: each image needs as many labels and scores as "
                f"predictions, got {len(pred)}, {len(pred_label)} and "
                f"{len(pred_score)}"
            )
        if not (len(gt) == len(gt_label) == len(difficult)):
            raise ValueError(
                f"{function}: each image needs as many ground-truth labels (and "
                f"difficult flags) as ground truths, got {len(gt)}, "
                f"{len(gt_label)} and {len(difficult)}"
            )
        for lbl in np.unique(np.concatenate((pred_label, gt_label)).astype(int)):
            l_int = int(lbl)
            p_mask = pred_label == lbl
            pred_l = pred[p_mask]
            score_l = pred_score[p_mask]
            order = _descending(score_l)
            pred_l = pred_l[order]
            score_l = score_l[order]
            g_mask = gt_label == lbl
            gt_l = gt[g_mask]
            difficult_l = difficult[g_mask]

            n_pos[l_int] += int(np.logical_not(difficult_l).sum())
            scores[l_int].append(score_l)
            if len(pred_l) == 0:
                continue
            if len(gt_l) == 0:
                matches[l_int].append(np.zeros(len(pred_l), dtype=np.int8))
                continue
            overlap = iou(pred_l, gt_l)
            gt_index = overlap.argmax(axis=1)
            gt_index[overlap.max(axis=1) < iou_thresh] = -1
            match = np.zeros(len(pred_l), dtype=np.int8)
            taken = np.zeros(len(gt_l), dtype=bool)
            for i, g in enumerate(gt_index.tolist()):
                if g < 0:
                    continue
                if difficult_l[g]:
                    match[i] = -1
                elif not taken[g]:
                    match[i] = 1
                taken[g] = True
            matches[l_int].append(match)
    n_fg_class = max(n_pos) + 1 if n_pos else 0
    prec: list[np.ndarray | None] = [None] * n_fg_class
    rec: list[np.ndarray | None] = [None] * n_fg_class
    for lbl_key, n in n_pos.items():
        score_all = np.concatenate(scores[lbl_key])
        match_all = (
            np.concatenate(matches[lbl_key])
            if matches[lbl_key]
            else np.zeros(0, np.int8)
        )
        order = _descending(score_all)
        match_all = match_all[order]
        tp = np.cumsum(match_all == 1)
        fp = np.cumsum(match_all == 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            # nan where tp + fp is 0 (only "difficult" matches so far).
            prec[lbl_key] = tp / (fp + tp)
        if n > 0:
            rec[lbl_key] = tp / n
    return prec, rec
