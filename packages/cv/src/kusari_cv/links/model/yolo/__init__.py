"""YOLO detectors (v2, v2 tiny and v3)."""

from kusari_cv.links.model.yolo.yolo_base import YOLOBase
from kusari_cv.links.model.yolo.yolo_v2 import (
    Darknet19Extractor,
    DarknetExtractor,
    YOLOv2,
    YOLOv2Base,
    YOLOv2Tiny,
)
from kusari_cv.links.model.yolo.yolo_v3 import Darknet53Extractor, ResidualBlock, YOLOv3

__all__ = [
    "Darknet19Extractor",
    "Darknet53Extractor",
    "DarknetExtractor",
    "ResidualBlock",
    "YOLOBase",
    "YOLOv2",
    "YOLOv2Base",
    "YOLOv2Tiny",
    "YOLOv3",
]
