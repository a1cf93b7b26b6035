"""``chainercv.experimental.links``: PSPNet and YOLOv2Tiny (FCIS is not
part of kusari-cv yet)."""

from kusari_cv.experimental.links import model
from kusari_cv.experimental.links.model.pspnet import PSPNetResNet50, PSPNetResNet101
from kusari_cv.experimental.links.model.yolo import YOLOv2Tiny
