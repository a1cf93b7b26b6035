"""Average precision and recall of detections, MS COCO style."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from kusari_cv.evaluations import _coco
from kusari_cv.evaluations._coco_inputs import collect
from kusari_cv.utils.bbox._check import check_bbox


def _box_geometry(bbox: Any) -> tuple[np.ndarray, np.ndarray]:
    bbox = np.asarray(bbox)
    if bbox.size == 0:
        bbox = bbox.reshape(0, 4)
    check_bbox("eval_detection_coco", bbox)
    y0, x0, y1, x1 = bbox[:, 0], bbox[:, 1], bbox[:, 2], bbox[:, 3]
    h, w = y1 - y0, x1 - x0
    # COCO stores boxes as (x, y, w, h) rounded to 0.01, in the input's
    # precision; the IoU is then computed from those in double precision.
    xywh = np.round(np.stack((x0, y0, w, h), axis=1), 2).astype(np.float64)
    return xywh, h * w


def _box_iou(dt: np.ndarray, gt: np.ndarray, crowd: np.ndarray) -> np.ndarray:
    """COCO's box IoU; for a crowd the union is the detection's area."""
    dx, dy, dw, dh = (dt[:, i, None] for i in range(4))
    gx, gy, gw, gh = (gt[None, :, i] for i in range(4))
    w = np.minimum(dx + dw, gx + gw) - np.maximum(dx, gx)
    h = np.minimum(dy + dh, gy + gh) - np.maximum(dy, gy)
    inter = np.where((w > 0) & (h > 0), w * h, 0.0)
    d_area, g_area = dw * dh, gw * gh
    union = np.where(crowd[None, :], d_area, d_area + g_area - inter)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(inter > 0, inter / union, 0.0)


def eval_detection_coco(
    pred_bboxes: Iterable[Any],
    pred_labels: Iterable[Any],
    pred_scores: Iterable[Any],
    gt_bboxes: Iterable[Any],
    gt_labels: Iterable[Any],
    gt_areas: Iterable[Any] | None = None,
    gt_crowdeds: Iterable[Any] | None = None,
) -> dict[str, Any]:
    """COCO's twelve detection metrics, per class and averaged.

    Gives the numbers ``pycocotools`` gives for the same data (it is not
    needed). Boxes are ``(y_min, x_min, y_max, x_max)``.

    Args:
        pred_bboxes: Per image, ``(R, 4)`` predicted boxes.
        pred_labels: Per image, ``(R,)`` int labels.
        pred_scores: Per image, ``(R,)`` confidences.
        gt_bboxes: Per image, ``(R', 4)`` ground-truth boxes.
        gt_labels: Per image, ``(R',)`` labels.
        gt_areas: Per image, ``(R',)`` object areas (COCO's segment areas).
            If None, the box areas are used and the metrics by object size are
            left out.
        gt_crowdeds: Per image, ``(R',)`` bool "crowd" flags, or None.

    Returns:
        A dict with, for ``ap`` at IoU 0.50:0.95, 0.50 and 0.75 (100
        detections) and by area (small, medium, large), and for ``ar`` with 1,
        10 and 100 detections and by area, keys such as
        ``'ap/iou=0.50:0.95/area=all/max_dets=100'`` (a per-class array, nan
        for labels absent from both predictions and ground truth) and
        ``'map/iou=0.50:0.95/area=all/max_dets=100'`` (their mean), plus
        ``'existent_labels'``. Unlike ChainerCV there is no ``'coco_eval'``
        entry.
    """
    images, labels = collect(
        "eval_detection_coco",
        pred_bboxes,
        pred_labels,
        pred_scores,
        gt_bboxes,
        gt_labels,
        gt_areas,
        gt_crowdeds,
        _box_geometry,
    )
    return _coco.evaluate(images, labels, _box_iou, with_areas=gt_areas is not None)
