"""Utilities: boxes, masks, images, iterators, downloads and testing helpers."""

from kusari_cv.utils import testing
from kusari_cv.utils.bbox.bbox_iou import bbox_iou
from kusari_cv.utils.bbox.non_maximum_suppression import non_maximum_suppression
from kusari_cv.utils.download import cached_download, download_model, extractall
from kusari_cv.utils.image import read_image, read_label, tile_images, write_image
from kusari_cv.utils.iterator import ProgressHook, apply_to_iterator, unzip
from kusari_cv.utils.link import prepare_pretrained_model
from kusari_cv.utils.mask.mask_iou import mask_iou
from kusari_cv.utils.mask.mask_to_bbox import mask_to_bbox
from kusari_cv.utils.mask.scale_mask import scale_mask
from kusari_cv.utils.testing import *  # noqa: F403 (ChainerCV has them here too)

__all__ = [
    "ProgressHook",
    "apply_to_iterator",
    "bbox_iou",
    "cached_download",
    "download_model",
    "extractall",
    "mask_iou",
    "mask_to_bbox",
    "non_maximum_suppression",
    "prepare_pretrained_model",
    "read_image",
    "read_label",
    "scale_mask",
    "tile_images",
    "unzip",
    "write_image",
]
__all__ += testing.__all__
