"""MS COCO detection metrics as a trainer extension."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kusari_cv.evaluations import eval_detection_coco
from kusari_cv.extensions.evaluator._base import PredictionEvaluator, unpack


def coco_report(
    evaluator: PredictionEvaluator, result: dict[str, Any]
) -> dict[str, Any]:
    """The ``map/...`` and ``mar/...`` means, and per-label values by name."""
    report = {k: v for k, v in result.items() if k.startswith(("map/", "mar/"))}
    for key, value in result.items():
        if key.startswith(("ap/", "ar/")):
            evaluator.per_label(report, key, value)
    return report


class DetectionCOCOEvaluator(PredictionEvaluator):
    """Report the MS COCO detection metrics of a link over a data set.

    The iterator yields ``(img, bbox, label)`` or ``(img, bbox, label, area,
    crowded)`` samples; ``target.predict(imgs)`` returns ``(bboxes, labels,
    scores)``. Reports every mean of :func:`eval_detection_coco` (e.g.
    ``map/iou=0.50:0.95/area=all/max_dets=100``) and, with ``label_names``,
    the per-class values as ``<key>/<name>``.
    """

    def score(
        self,
        out_values: tuple[Iterator[Any], ...],
        rest_values: tuple[Iterator[Any], ...],
    ) -> dict[str, Any]:
        pred_bboxes, pred_labels, pred_scores = out_values
        gt_bboxes, gt_labels, gt_areas, gt_crowdeds = unpack(
            "DetectionCOCOEvaluator", rest_values, (2, 4)
        )
        result = eval_detection_coco(
            pred_bboxes,
            pred_labels,
            pred_scores,
            gt_bboxes,
            gt_labels,
            gt_areas,
            gt_crowdeds,
        )
        return coco_report(self, result)
