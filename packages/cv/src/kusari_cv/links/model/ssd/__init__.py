"""SSD: Single Shot MultiBox Detector."""

from kusari_cv.links.model.ssd.gradient_scaling import GradientScaling
from kusari_cv.links.model.ssd.multibox import Multibox
from kusari_cv.links.model.ssd.multibox_coder import MultiboxCoder
from kusari_cv.links.model.ssd.multibox_loss import multibox_loss
from kusari_cv.links.model.ssd.normalize import Normalize
from kusari_cv.links.model.ssd.ssd import SSD
from kusari_cv.links.model.ssd.ssd_vgg16 import (
    SSD300,
    SSD512,
    VGG16,
    VGG16Extractor300,
    VGG16Extractor512,
)
from kusari_cv.links.model.ssd.transforms import (
    random_crop_with_bbox_constraints,
    random_distort,
    resize_with_random_interpolation,
)

__all__ = [
    "SSD",
    "SSD300",
    "SSD512",
    "VGG16",
    "GradientScaling",
    "Multibox",
    "MultiboxCoder",
    "Normalize",
    "VGG16Extractor300",
    "VGG16Extractor512",
    "multibox_loss",
    "random_crop_with_bbox_constraints",
    "random_distort",
    "resize_with_random_interpolation",
]
