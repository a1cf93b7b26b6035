"""PASCAL VOC mAP as a trainer extension."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from kusari_cv.evaluations import eval_detection_voc
from kusari_cv.extensions.evaluator._base import PredictionEvaluator, unpack


class DetectionVOCEvaluator(PredictionEvaluator):
    """Report PASCAL VOC mAP of a detection link over a data set.

    The iterator yields ``(img, bbox, label)`` or ``(img, bbox, label,
    difficult)`` samples and should not repeat; ``target.predict(imgs)``
    returns ``(bboxes, labels, scores)``. Reports ``map`` and, with
    ``label_names``, ``ap/<name>`` (under ``validation/main/``).

    Args:
        iterator: The validation iterator.
        target: The detection link.
        use_07_metric: Use VOC2007's 11-point AP.
        label_names: Names of the foreground classes.
        comm: A kusari_mn communicator to spread prediction over workers.
    """

    def __init__(
        self,
        iterator: Any,
        target: Any,
        use_07_metric: bool = False,
        label_names: Sequence[str] | None = None,
        comm: Any = None,
    ) -> None:
        super().__init__(iterator, target, label_names, comm)
        self.use_07_metric = use_07_metric

    def score(
        self,
        out_values: tuple[Iterator[Any], ...],
        rest_values: tuple[Iterator[Any], ...],
    ) -> dict[str, Any]:
        pred_bboxes, pred_labels, pred_scores = out_values
        gt_bboxes, gt_labels, gt_difficults = unpack(
            "DetectionVOCEvaluator", rest_values, (2, 3)
        )
        result = eval_detection_voc(
            pred_bboxes,
            pred_labels,
            pred_scores,
            gt_bboxes,
            gt_labels,
            gt_difficults,
            use_07_metric=self.use_07_metric,
        )
        report = {"map": result["map"]}
        self.per_label(report, "ap", result["ap"])
        return report
