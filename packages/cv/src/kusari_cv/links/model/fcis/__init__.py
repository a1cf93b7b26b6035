"""FCIS instance segmentation (ChainerCV's ``experimental.links.model.fcis``)."""

from kusari_cv.links.model.fcis.fcis import FCIS
from kusari_cv.links.model.fcis.fcis_resnet101 import (
    FCISResNet101,
    FCISResNet101Head,
    ResNet101Extractor,
)
from kusari_cv.links.model.fcis.utils.mask_voting import mask_voting
