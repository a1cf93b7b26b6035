"""PASCAL VOC semantic segmentation."""

from __future__ import annotations

import os

import numpy as np

from kusari_cv.chainer_experimental.datasets.sliceable import GetterDataset
from kusari_cv.datasets._common import require
from kusari_cv.datasets.voc import voc_utils
from kusari_cv.utils.image import read_image, read_label


class VOCSemanticSegmentationDataset(GetterDataset):
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
        if split not in ("train", "trainval", "val"):
            raise ValueError(
                f"{owner}: split must be 'train', 'trainval' or 'val', got {split!r}"
            )
        if data_dir == "auto":
            data_dir = voc_utils.get_voc("2012", split, owner)
        self.data_dir = data_dir
        self.ids = voc_utils.read_ids(data_dir, "Segmentation", split, owner)
        self.add_getter("img", self._get_image)
        self.add_getter("label", self._get_label)

    def __len__(self) -> int:
        return len(self.ids)

    def _get_image(self, i: int) -> np.ndarray:
        path = os.path.join(self.data_dir, "JPEGImages", self.ids[i] + ".jpg")
        require(path, type(self).__name__, f"the image of {self.ids[i]!r}")
        return read_image(path, color=True)

    def _get_label(self, i: int) -> np.ndarray:
        path = os.path.join(self.data_dir, "SegmentationClass", self.ids[i] + ".png")
        require(path, type(self).__name__, f"the class map of {self.ids[i]!r}")
        label = read_label(path, dtype=np.int32)
        label[label == 255] = -1  # object borders and difficult regions
        return label
