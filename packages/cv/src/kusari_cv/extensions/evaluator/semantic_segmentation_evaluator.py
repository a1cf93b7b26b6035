"""Semantic segmentation metrics as a trainer extension."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kusari_cv.evaluations import eval_semantic_segmentation
from kusari_cv.extensions.evaluator._base import PredictionEvaluator, unpack


class SemanticSegmentationEvaluator(PredictionEvaluator):
    """Report mIoU and accuracies of a segmentation link over a data set.

    The iterator yields ``(img, label)``; ``target.predict(imgs)`` returns
    label maps. Reports ``miou``, ``pixel_accuracy``, ``mean_class_accuracy``
    and, with ``label_names``, ``iou/<name>`` and ``class_accuracy/<name>``.
    """

    def score(
        self,
        out_values: tuple[Iterator[Any], ...],
        rest_values: tuple[Iterator[Any], ...],
    ) -> dict[str, Any]:
        (pred_labels,) = out_values
        (gt_labels,) = unpack("SemanticSegmentationEvaluator", rest_values, (1,))
        result = eval_semantic_segmentation(pred_labels, gt_labels)
        report = {
            "miou": result["miou"],
            "pixel_accuracy": result["pixel_accuracy"],
            "mean_class_accuracy": result["mean_class_accuracy"],
        }
        self.per_label(report, "iou", result["iou"])
        self.per_label(report, "class_accuracy", result["class_accuracy"])
        return report
