"""PASCAL VOC semantic segmentation."""

from __future__ import annotations

import os

import numpy as np

from kusari_cv.datasets._common import ImageIdsDataset, check_split, require
from kusari_cv.datasets.voc import voc_utils
from kusari_cv.utils.image import read_label


class VOCSemanticSegmentationDataset(ImageIdsDataset):
    """Semantic segmentation dataset for PASCAL VOC2012.

    Reads ``ImageSets/Segmentation/<split>.txt``, ``JPEGImages/<id>.jpg`` and
    the palette PNGs ``SegmentationClass/<id>.png``.

    Args:
        data_dir: The ``VOC2012`` folder, or ``'auto'``.
        split: ``'train'``, ``'val'`` or ``'trainval'``.

    ==========  =========  =======  ==============================
    key         shape      dtype    format
    ==========  =========  =======  ==============================
    ``img``     (3, H, W)  float32  RGB, [0, 255]
    ``label``   (H, W)     int32    [-1, #class - 1] (-1: ignored)
    ==========  =========  =======  ==============================
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
        self.add_getter("label", self._get_label)

    def _get_label(self, i: int) -> np.ndarray:
        path = os.path.join(self.data_dir, "SegmentationClass", self.ids[i] + ".png")
        require(path, type(self).__name__, f"the class map of {self.ids[i]!r}")
        label = read_label(path, dtype=np.int32)
        label[label == 255] = -1  # object borders and difficult regions
        return label
