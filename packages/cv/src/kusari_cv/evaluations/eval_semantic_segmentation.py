"""Confusion matrix, IoU and accuracies of semantic segmentation."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

import numpy as np


def calc_semantic_segmentation_confusion(
    pred_labels: Iterable[Any], gt_labels: Iterable[Any]
) -> np.ndarray:
    """Count (ground truth, prediction) class pairs over all pixels.

    Pixels whose ground truth is negative (-1: "ignore") are skipped. The
    matrix grows to the largest label seen.

    Args:
        pred_labels: Per image, an ``(H, W)`` int array of predicted classes.
        gt_labels: Per image, an ``(H, W)`` int array of true classes.

    Returns:
        An int64 array ``(n_class, n_class)``; ``[i, j]`` counts pixels of
        class ``i`` predicted as ``j``.
    """
    n_class = 0
    confusion = np.zeros((0, 0), dtype=np.int64)
    missing = object()
    for pred, gt in itertools.zip_longest(pred_labels, gt_labels, fillvalue=missing):
        if pred is missing or gt is missing:
            raise ValueError(
                "calc_semantic_segmentation_confusion: pred_labels and gt_labels "
                "must have the same length"
            )
        pred, gt = np.asarray(pred), np.asarray(gt)
        if pred.ndim != 2 or gt.ndim != 2:
            raise ValueError(
                "calc_semantic_segmentation_confusion: labels must be 2D (H, W), "
                f"got shapes {pred.shape} and {gt.shape}"
            )
        if pred.shape != gt.shape:
            raise ValueError(
                "calc_semantic_segmentation_confusion: prediction and ground "
                f"truth shapes differ: {pred.shape} and {gt.shape}"
            )
        pred, gt = pred.ravel(), gt.ravel()
        # As ChainerCV: the matrix covers every label present, even on
        # ignored pixels.
        top = int(max(pred.max(initial=-1), gt.max(initial=-1))) + 1
        valid = gt >= 0
        pred, gt = pred[valid].astype(np.int64), gt[valid].astype(np.int64)
        if len(pred) and pred.min() < 0:
            raise ValueError(
                "calc_semantic_segmentation_confusion: predicted labels must be "
                f"non-negative where the ground truth is valid, got {pred.min()}"
            )
        if top > n_class:
            grown = np.zeros((top, top), dtype=np.int64)
            grown[:n_class, :n_class] = confusion
            confusion, n_class = grown, top
        confusion += np.bincount(n_class * gt + pred, minlength=n_class**2).reshape(
            n_class, n_class
        )
    return confusion


def calc_semantic_segmentation_iou(confusion: np.ndarray) -> np.ndarray:
    """Per-class IoU ``TP / (TP + FP + FN)`` from a confusion matrix
    (nan for classes that appear in neither prediction nor ground truth)."""
    diag = np.diag(confusion)
    union = confusion.sum(axis=1) + confusion.sum(axis=0) - diag
    with np.errstate(divide="ignore", invalid="ignore"):
        return diag / union


def eval_semantic_segmentation(
    pred_labels: Iterable[Any], gt_labels: Iterable[Any]
) -> dict[str, Any]:
    """IoU, pixel accuracy and class accuracy of label maps.

    Args:
        pred_labels: Per image, an ``(H, W)`` int array of predicted classes.
        gt_labels: Per image, an ``(H, W)`` int array (-1: ignore).

    Returns:
        ``{'iou', 'miou', 'pixel_accuracy', 'class_accuracy',
        'mean_class_accuracy'}``: per-class arrays and their nanmeans.

    Example:
        >>> import numpy as np
        >>> r = eval_semantic_segmentation([np.array([[0, 1], [1, 1]])],
        ...                                [np.array([[0, 1], [0, 1]])])
        >>> r['iou'].tolist(), float(r['pixel_accuracy'])
        ([0.5, 0.6666666666666666], 0.75)
    """
    confusion = calc_semantic_segmentation_confusion(pred_labels, gt_labels)
    iou = calc_semantic_segmentation_iou(confusion)
    diag = np.diag(confusion)
    with np.errstate(divide="ignore", invalid="ignore"):
        pixel_accuracy = diag.sum() / confusion.sum()
        class_accuracy = diag / confusion.sum(axis=1)
    return {
        "iou": iou,
        "miou": _nanmean(iou),
        "pixel_accuracy": pixel_accuracy,
        "class_accuracy": class_accuracy,
        "mean_class_accuracy": _nanmean(class_accuracy),
    }


def _nanmean(x: np.ndarray) -> float:
    # np.nanmean warns on all-nan input; an empty score is simply nan.
    return float(np.nanmean(x)) if np.isfinite(x).any() else float("nan")
