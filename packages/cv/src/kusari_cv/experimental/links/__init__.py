"""``chainercv.experimental.links``: FCIS, PSPNet and YOLOv2Tiny."""

from kusari_cv.experimental.links import model
from kusari_cv.experimental.links.model.pspnet import PSPNetResNet50, PSPNetResNet101
from kusari_cv.experimental.links.model.yolo import YOLOv2Tiny
from kusari_cv.links.model.fcis import FCISResNet101
