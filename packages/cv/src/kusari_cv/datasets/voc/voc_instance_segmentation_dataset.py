"""PASCAL VOC instance segmentation."""

from __future__ import annotations

import os

import numpy as np

from kusari_cv.datasets._common import ImageIdsDataset, check_split, require
from kusari_cv.datasets.voc import voc_utils
from kusari_cv.utils.image import read_label


class VOCInstanceSegmentationDataset(ImageIdsDataset):
    """Instance segmentation dataset for PASCAL VOC2012.

    Reads ``ImageSets/Segmentation/<split>.txt``, ``JPEGImages/<id>.jpg`` and
    the palette PNGs ``SegmentationClass/<id>.png`` and
    ``SegmentationObject/<id>.png``.

    Args:
        data_dir: The ``VOC2012`` folder, or ``'auto'``.
        split: ``'train'``, ``'val'`` or ``'trainval'``.

    ==========  ============  =======  =====================
    key         shape         dtype    format
    ==========  ============  =======  =====================
    ``img``     (3, H, W)     float32  RGB, [0, 255]
    ``mask``    (R, H, W)     bool     --
    ``label``   (R,)          int32    [0, #fg_class - 1]
    ==========  ============  =======  =====================
    """

    def __init__(self, data_dir: str = "auto", split: str = "train") -> None:
        super().__init__()
        owner = type(self).__name__
        check_split(split, owner)
        if data_dir == "auto":
            data_dir = voc_utils.get_voc("2012", split, owner)
        self.data_dir = data_dir
        self.ids = voc_utils.read_ids(data_dir, "Segmentation", split, owner)
        self.add_getter("img", self._get_image)
        self.add_getter(("mask", "label"), self._get_annotations)

    def _get_annotations(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        owner = type(self).__name__
        label_path = os.path.join(
            self.data_dir, "SegmentationClass", self.ids[i] + ".png"
        )
        inst_path = os.path.join(
            self.data_dir, "SegmentationObject", self.ids[i] + ".png"
        )
        require(label_path, owner, f"the class map of {self.ids[i]!r}")
        require(inst_path, owner, f"the instance map of {self.ids[i]!r}")
        label_img = read_label(label_path, dtype=np.int32)
        label_img[label_img == 255] = -1
        inst_img = read_label(inst_path, dtype=np.int32)
        inst_img[(inst_img == 0) | (inst_img == 255)] = -1
        return voc_utils.image_wise_to_instance_wise(label_img, inst_img, inst_path)
