"""Average precision of instance masks, PASCAL VOC style."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from kusari_cv.evaluations._voc import voc_prec_rec
from kusari_cv.evaluations.eval_detection_voc import calc_detection_voc_ap
from kusari_cv.utils.mask.mask_iou import mask_iou


def calc_instance_segmentation_voc_prec_rec(
    pred_masks: Iterable[Any],
    pred_labels: Iterable[Any],
    pred_scores: Iterable[Any],
    gt_masks: Iterable[Any],
    gt_labels: Iterable[Any],
    iou_thresh: float = 0.5,
) -> tuple[list[np.ndarray | None], list[np.ndarray | None]]:
    """Precision and recall curves of each class, matching masks by mask IoU.

    As :func:`calc_detection_voc_prec_rec` with ``(R, H, W)`` bool masks in
    place of boxes and no "difficult" flags.
    """
    return voc_prec_rec(
        "calc_instance_segmentation_voc_prec_rec",
        pred_masks,
        pred_labels,
        pred_scores,
        gt_masks,
        gt_labels,
        None,
        mask_iou,
        iou_thresh,
    )


def eval_instance_segmentation_voc(
    pred_masks: Iterable[Any],
    pred_labels: Iterable[Any],
    pred_scores: Iterable[Any],
    gt_masks: Iterable[Any],
    gt_labels: Iterable[Any],
    iou_thresh: float = 0.5,
    use_07_metric: bool = False,
) -> dict[str, Any]:
    """Per-class AP of instance masks and its mean (``{'ap', 'map'}``).

    Arguments as in :func:`calc_instance_segmentation_voc_prec_rec`;
    ``use_07_metric`` as in :func:`calc_detection_voc_ap`.
    """
    prec, rec = calc_instance_segmentation_voc_prec_rec(
        pred_masks, pred_labels, pred_scores, gt_masks, gt_labels, iou_thresh
    )
    ap = calc_detection_voc_ap(prec, rec, use_07_metric=use_07_metric)
    mean = np.nanmean(ap) if np.isfinite(ap).any() else np.nan
    return {"ap": ap, "map": mean}
