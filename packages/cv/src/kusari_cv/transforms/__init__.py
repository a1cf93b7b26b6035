"""Data augmentation and preprocessing of images, boxes and points."""

from kusari_cv.transforms.bbox.crop_bbox import crop_bbox
from kusari_cv.transforms.bbox.flip_bbox import flip_bbox
from kusari_cv.transforms.bbox.resize_bbox import resize_bbox
from kusari_cv.transforms.bbox.rotate_bbox import rotate_bbox
from kusari_cv.transforms.bbox.translate_bbox import translate_bbox
from kusari_cv.transforms.image.center_crop import center_crop
from kusari_cv.transforms.image.flip import flip
from kusari_cv.transforms.image.pca_lighting import pca_lighting
from kusari_cv.transforms.image.random_crop import random_crop
from kusari_cv.transforms.image.random_expand import random_expand
from kusari_cv.transforms.image.random_flip import random_flip
from kusari_cv.transforms.image.random_rotate import random_rotate
from kusari_cv.transforms.image.random_sized_crop import random_sized_crop
from kusari_cv.transforms.image.resize import resize
from kusari_cv.transforms.image.resize_contain import resize_contain
from kusari_cv.transforms.image.rotate import rotate
from kusari_cv.transforms.image.scale import scale
from kusari_cv.transforms.image.ten_crop import ten_crop
from kusari_cv.transforms.point.flip_point import flip_point
from kusari_cv.transforms.point.resize_point import resize_point
from kusari_cv.transforms.point.translate_point import translate_point

__all__ = [
    "center_crop",
    "crop_bbox",
    "flip",
    "flip_bbox",
    "flip_point",
    "pca_lighting",
    "random_crop",
    "random_expand",
    "random_flip",
    "random_rotate",
    "random_sized_crop",
    "resize",
    "resize_bbox",
    "resize_contain",
    "resize_point",
    "rotate",
    "rotate_bbox",
    "scale",
    "ten_crop",
    "translate_bbox",
    "translate_point",
]
