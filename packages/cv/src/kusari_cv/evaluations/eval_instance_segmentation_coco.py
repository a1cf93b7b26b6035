"""Average precision and recall of instance masks, MS COCO style."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from kusari_cv.evaluations import _coco
from kusari_cv.evaluations._coco_inputs import collect


def _mask_geometry(mask: Any) -> tuple[np.ndarray, np.ndarray]:
    mask = np.asarray(mask)
    if mask.ndim != 3:
        raise ValueError(
            "eval_instance_segmentation_coco: masks must have shape (R, H, W), "
            f"got {mask.shape}"
        )
    flat = mask.reshape(len(mask), mask.shape[1] * mask.shape[2]).astype(bool)
    return flat, flat.sum(axis=1)


def _mask_iou(dt: np.ndarray, gt: np.ndarray, crowd: np.ndarray) -> np.ndarray:
    """COCO's mask IoU; for a crowd the union is the detection's area."""
    if dt.shape[1] != gt.shape[1]:
        raise ValueError(
            "eval_instance_segmentation_coco: predicted and ground-truth masks "
            "of an image must have the same size"
        )
    # Pixel counts are exact in float64.
    inter = dt.astype(np.float64) @ gt.T.astype(np.float64)
    d_area = dt.sum(axis=1).astype(np.float64)[:, None]
    g_area = gt.sum(axis=1).astype(np.float64)[None, :]
    union = np.where(crowd[None, :], d_area, d_area + g_area - inter)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(inter > 0, inter / union, 0.0)


def eval_instance_segmentation_coco(
    pred_masks: Iterable[Any],
    pred_labels: Iterable[Any],
    pred_scores: Iterable[Any],
    gt_masks: Iterable[Any],
    gt_labels: Iterable[Any],
    gt_areas: Iterable[Any] | None = None,
    gt_crowdeds: Iterable[Any] | None = None,
) -> dict[str, Any]:
    """COCO's twelve instance segmentation metrics, per class and averaged.

    As :func:`~kusari_cv.evaluations.eval_detection_coco` with ``(R, H, W)``
    bool masks instead of boxes (mask IoU; a mask's area is its pixel
    count). Gives the numbers ``pycocotools`` gives for ``iouType='segm'``.
    """
    images, labels = collect(
        "eval_instance_segmentation_coco",
        pred_masks,
        pred_labels,
        pred_scores,
        gt_masks,
        gt_labels,
        gt_areas,
        gt_crowdeds,
        _mask_geometry,
    )
    return _coco.evaluate(images, labels, _mask_iou, with_areas=gt_areas is not None)
