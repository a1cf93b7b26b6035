"""``chainercv.experimental.links.model.pspnet`` (see kusari_cv.links.model.pspnet)."""

from kusari_cv.links.model.pspnet import PSPNetResNet50, PSPNetResNet101

__all__ = ["PSPNetResNet50", "PSPNetResNet101"]
