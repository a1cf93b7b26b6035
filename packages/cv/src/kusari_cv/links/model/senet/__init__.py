"""Squeeze-and-excitation ResNets and ResNeXts."""

from kusari_cv.links.model.senet.se_resnet import (
    SEResNet,
    SEResNet50,
    SEResNet101,
    SEResNet152,
)
from kusari_cv.links.model.senet.se_resnext import (
    SEResNeXt,
    SEResNeXt50,
    SEResNeXt101,
)
