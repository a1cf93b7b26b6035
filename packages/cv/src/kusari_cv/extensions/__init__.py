"""Trainer extensions: data-set-level evaluators and pictures of predictions."""

from kusari_cv.extensions.evaluator.detection_coco_evaluator import (
    DetectionCOCOEvaluator,
)
from kusari_cv.extensions.evaluator.detection_voc_evaluator import DetectionVOCEvaluator
from kusari_cv.extensions.evaluator.instance_segmentation_coco_evaluator import (
    InstanceSegmentationCOCOEvaluator,
)
from kusari_cv.extensions.evaluator.instance_segmentation_voc_evaluator import (
    InstanceSegmentationVOCEvaluator,
)
from kusari_cv.extensions.evaluator.semantic_segmentation_evaluator import (
    SemanticSegmentationEvaluator,
)
from kusari_cv.extensions.vis_report.detection_vis_report import DetectionVisReport

__all__ = [
    "DetectionCOCOEvaluator",
    "DetectionVOCEvaluator",
    "DetectionVisReport",
    "InstanceSegmentationCOCOEvaluator",
    "InstanceSegmentationVOCEvaluator",
    "SemanticSegmentationEvaluator",
]
