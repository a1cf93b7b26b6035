"""PASCAL VOC mAP of instance masks as a trainer extension."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from kusari_cv.evaluations import eval_instance_segmentation_voc
from kusari_cv.extensions.evaluator._base import PredictionEvaluator, unpack


class InstanceSegmentationVOCEvaluator(PredictionEvaluator):
    """Report mask mAP (VOC style) of an instance segmentation link.

    The iterator yields ``(img, mask, label)``; ``target.predict(imgs)``
    returns ``(masks, labels, scores)``. Reports ``map`` and, with
    ``label_names``, ``ap/<name>``.

    Args:
        iterator: The validation iterator.
        target: The instance segmentation link.
        iou_thresh: The mask IoU a true positive needs.
        use_07_metric: Use VOC2007's 11-point AP.
        label_names: Names of the foreground classes.
        comm: A kusari_mn communicator to spread prediction over workers.
    """

    def __init__(
        self,
        iterator: Any,
        target: Any,
        iou_thresh: float = 0.5,
        use_07_metric: bool = False,
        label_names: Sequence[str] | None = None,
        comm: Any = None,
    ) -> None:
        super().__init__(iterator, target, label_names, comm)
        self.iou_thresh = iou_thresh
        self.use_07_metric = use_07_metric

    def score(
        self,
        out_values: tuple[Iterator[Any], ...],
        rest_values: tuple[Iterator[Any], ...],
    ) -> dict[str, Any]:
        pred_masks, pred_labels, pred_scores = out_values
        gt_masks, gt_labels = unpack(
            "InstanceSegmentationVOCEvaluator", rest_values, (2,)
        )
        result = eval_instance_segmentation_voc(
            pred_masks,
            pred_labels,
            pred_scores,
            gt_masks,
            gt_labels,
            iou_thresh=self.iou_thresh,
            use_07_metric=self.use_07_metric,
        )
        report = {"map": result["map"]}
        self.per_label(report, "ap", result["ap"])
        return report
