"""ResNet classifiers and their residual blocks."""

from kusari_cv.links.model.resnet.resblock import (
    Bottleneck,
    ResBlock,
)
from kusari_cv.links.model.resnet.resnet import (
    ResNet,
    ResNet50,
    ResNet101,
    ResNet152,
)
