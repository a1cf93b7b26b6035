"""``chainercv.experimental.links.model``."""

from kusari_cv.experimental.links.model import fcis, pspnet, yolo
