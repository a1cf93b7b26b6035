"""MS COCO instance segmentation metrics as a trainer extension."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kusari_cv.evaluations import eval_instance_segmentation_coco
from kusari_cv.extensions.evaluator._base import PredictionEvaluator, unpack
from kusari_cv.extensions.evaluator.detection_coco_evaluator import coco_report


class InstanceSegmentationCOCOEvaluator(PredictionEvaluator):
    """Report the MS COCO mask metrics of an instance segmentation link.

    The iterator yields ``(img, mask, label)`` or ``(img, mask, label, area,
    crowded)``; ``target.predict(imgs)`` returns ``(masks, labels, scores)``.
    Reports what :class:`DetectionCOCOEvaluator` reports, for masks.
    """

    def score(
        self,
        out_values: tuple[Iterator[Any], ...],
        rest_values: tuple[Iterator[Any], ...],
    ) -> dict[str, Any]:
        pred_masks, pred_labels, pred_scores = out_values
        gt_masks, gt_labels, gt_areas, gt_crowdeds = unpack(
            "InstanceSegmentationCOCOEvaluator", rest_values, (2, 4)
        )
        result = eval_instance_segmentation_coco(
            pred_masks,
            pred_labels,
            pred_scores,
            gt_masks,
            gt_labels,
            gt_areas,
            gt_crowdeds,
        )
        return coco_report(self, result)
