"""``chainercv.experimental.links.model.yolo`` (see kusari_cv.links.model.yolo)."""

from kusari_cv.links.model.yolo import YOLOv2Tiny

__all__ = ["YOLOv2Tiny"]
