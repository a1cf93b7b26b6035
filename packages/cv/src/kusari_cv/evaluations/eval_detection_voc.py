"""Average precision of detections, PASCAL VOC style."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from kusari_cv.evaluations._voc import voc_prec_rec
from kusari_cv.utils.bbox.bbox_iou import bbox_iou


def _voc_bbox_iou(pred: np.ndarray, gt: np.ndarray) -> np.ndarray:
    # VOC boxes are inclusive integer pixel ranges: a box's extent is
    # max - min + 1, so both sets are enlarged by one before the IoU.
    pred = np.array(pred, copy=True)
    gt = np.array(gt, copy=True)
    pred[:, 2:] += 1
    gt[:, 2:] += 1
    return bbox_iou(pred, gt)


def calc_detection_voc_prec_rec(
    pred_bboxes: Iterable[Any],
    pred_labels: Iterable[Any],
    pred_scores: Iterable[Any],
    gt_bboxes: Iterable[Any],
    gt_labels: Iterable[Any],
    gt_difficults: Iterable[Any] | None = None,
    iou_thresh: float = 0.5,
) -> tuple[list[np.ndarray | None], list[np.ndarray | None]]:
    """Precision and recall curves of each class over a data set.

    A prediction is a true positive when its best-overlapping ground truth of
    the same class (IoU with VOC's ``+ 1`` pixel convention) reaches
    ``iou_thresh`` and was not claimed by a higher-scored prediction.
    Predictions matched to a "difficult" ground truth count as neither true
    nor false positives, and difficult ground truths are not counted in the
    recall.

    Args:
        pred_bboxes: Per image, ``(R, 4)`` predicted boxes.
        pred_labels: Per image, ``(R,)`` int labels.
        pred_scores: Per image, ``(R,)`` confidences.
        gt_bboxes: Per image, ``(R', 4)`` ground-truth boxes.
        gt_labels: Per image, ``(R',)`` labels.
        gt_difficults: Per image, ``(R',)`` bool "difficult" flags, or None.
        iou_thresh: The IoU a true positive needs.

    Returns:
        ``(prec, rec)``: lists indexed by class (up to the largest label seen).
        ``prec[l]`` and ``rec[l]`` are arrays over the class's predictions
        sorted by score; ``prec[l]`` is None for a class never seen, ``rec[l]``
        is None when the class has no non-difficult ground truth.
    """
    return voc_prec_rec(
        "calc_detection_voc_prec_rec",
        pred_bboxes,
        pred_labels,
        pred_scores,
        gt_bboxes,
        gt_labels,
        gt_difficults,
        _voc_bbox_iou,
        iou_thresh,
    )


def calc_detection_voc_ap(
    prec: Sequence[np.ndarray | None],
    rec: Sequence[np.ndarray | None],
    use_07_metric: bool = False,
) -> np.ndarray:
    """Average precision of each class from its precision/recall curve.

    Args:
        prec: Per class, precisions (see :func:`calc_detection_voc_prec_rec`).
        rec: Per class, recalls.
        use_07_metric: Use VOC2007's 11-point metric (mean of the best
            precision at recall >= 0, 0.1, ..., 1) instead of the exact area
            under the monotone precision envelope (VOC2010 onwards).

    Returns:
        A float64 array of APs; nan where ``prec[l]`` or ``rec[l]`` is None.
    """
    n_class = len(prec)
    ap = np.empty(n_class)
    for cls in range(n_class):
        p, r = prec[cls], rec[cls]
        if p is None or r is None:
            ap[cls] = np.nan
            continue
        p = np.nan_to_num(p)
        if use_07_metric:
            total = 0.0
            for t in np.arange(0.0, 1.1, 0.1):
                above = r >= t
                total += (p[above].max() if above.any() else 0.0) / 11
            ap[cls] = total
        else:
            mpre = np.concatenate(([0.0], p, [0.0]))
            mrec = np.concatenate(([0.0], r, [1.0]))
            # The precision envelope: best precision at this recall or above.
            mpre = np.maximum.accumulate(mpre[::-1])[::-1]
            step = np.flatnonzero(mrec[1:] != mrec[:-1])
            ap[cls] = np.sum((mrec[step + 1] - mrec[step]) * mpre[step + 1])
    return ap


def eval_detection_voc(
    pred_bboxes: Iterable[Any],
    pred_labels: Iterable[Any],
    pred_scores: Iterable[Any],
    gt_bboxes: Iterable[Any],
    gt_labels: Iterable[Any],
    gt_difficults: Iterable[Any] | None = None,
    iou_thresh: float = 0.5,
    use_07_metric: bool = False,
) -> dict[str, Any]:
    """Average precision per class and its mean, as PASCAL VOC computes them.

    Arguments are as in :func:`calc_detection_voc_prec_rec`;
    ``use_07_metric`` as in :func:`calc_detection_voc_ap`.

    Returns:
        ``{'ap': per-class APs (nan for classes without ground truth), 'map':
        their nanmean}``.

    Example:
        >>> import numpy as np
        >>> gt = [np.array([[0, 0, 10, 10]], dtype=np.float32)]
        >>> pred = [np.array([[0, 0, 10, 10], [20, 20, 30, 30]], np.float32)]
        >>> r = eval_detection_voc(pred, [np.array([0, 0])],
        ...                        [np.array([0.9, 0.8])], gt, [np.array([0])])
        >>> float(r['map'])
        1.0
    """
    prec, rec = calc_detection_voc_prec_rec(
        pred_bboxes,
        pred_labels,
        pred_scores,
        gt_bboxes,
        gt_labels,
        gt_difficults,
        iou_thresh=iou_thresh,
    )
    ap = calc_detection_voc_ap(prec, rec, use_07_metric=use_07_metric)
    with np.errstate(invalid="ignore"):
        mean = np.nanmean(ap) if np.isfinite(ap).any() else np.nan
    return {"ap": ap, "map": mean}
