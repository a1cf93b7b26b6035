"""Turn ChainerCV-style per-image iterables into the COCO engine's images."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from kusari_cv.evaluations import _coco

# geometry(array) -> (geometry for IoU, area used when none is given)
_MISSING = object()
_Geometry = Callable[[np.ndarray], tuple[Any, np.ndarray]]


def collect(
    function: str,
    preds: Iterable[Any],
    pred_labels: Iterable[Any],
    pred_scores: Iterable[Any],
    gts: Iterable[Any],
    gt_labels: Iterable[Any],
    gt_areas: Iterable[Any] | None,
    gt_crowdeds: Iterable[Any] | None,
    geometry: _Geometry,
) -> tuple[list[_coco.Image], list[Any]]:
    """Images for :func:`_coco.evaluate` and the sorted labels present."""
    iters = [iter(x) for x in (preds, pred_labels, pred_scores, gts, gt_labels)]
    # Optional inputs join the length check only when given.
    optional = [iter(x) for x in (gt_areas, gt_crowdeds) if x is not None]
    images = []
    labels: set[Any] = set()
    for sample in itertools.zip_longest(*iters, *optional, fillvalue=_MISSING):
        if any(v is _MISSING for v in sample):
            raise ValueError(
                f"{function}: all the input iterables must have the same length"
            )
        pred, p_label, p_score, gt, g_label = sample[:5]
        rest = list(sample[5:])
        g_area = rest.pop(0) if gt_areas is not None else None
        g_crowd = rest.pop(0) if gt_crowdeds is not None else None
        p_label, g_label = np.asarray(p_label), np.asarray(g_label)
        p_score = np.asarray(p_score)
        if not (len(pred) == len(p_label) == len(p_score)):
            raise ValueError(
                f"{function}: each image needs as many labels and scores as "
                f"predictions, got {len(pred)}, {len(p_label)} and {len(p_score)}"
            )
        if len(gt) != len(g_label):
            raise ValueError(
                f"{function}: each image needs as many ground-truth labels as "
                f"ground truths, got {len(gt)} and {len(g_label)}"
            )
        p_geo, p_area = geometry(pred)
        g_geo, g_default_area = geometry(gt)
        g_area = g_default_area if g_area is None else np.asarray(g_area)
        g_crowd = (
            np.zeros(len(gt), dtype=bool)
            if g_crowd is None
            else np.asarray(g_crowd, bool)
        )
        if len(g_area) != len(gt) or len(g_crowd) != len(gt):
            raise ValueError(
                f"{function}: gt_areas and gt_crowdeds need one entry per ground "
                f"truth ({len(gt)}), got {len(g_area)} and {len(g_crowd)}"
            )
        images.append(
            _coco.Image(
                p_geo, p_label, p_score, p_area, g_geo, g_label, g_area, g_crowd
            )
        )
        labels.update(p_label.tolist())
        labels.update(g_label.tolist())
    return images, sorted(labels)
