"""MS COCO semantic segmentation (from the panoptic annotations)."""

from __future__ import annotations

import json
import os

import numpy as np

from kusari_cv.chainer_experimental.datasets.sliceable import GetterDataset
from kusari_cv.datasets._common import require
from kusari_cv.datasets.coco.coco_utils import get_coco
from kusari_cv.utils.image import read_image


class COCOSemanticSegmentationDataset(GetterDataset):
    """Semantic segmentation dataset for MS COCO 2017.

    Labels are derived from the panoptic annotations, as COCO's panopticapi
    does: each segment of ``annotations/panoptic_<split>2017/<name>.png``
    (ids encoded as ``R + 256 G + 256^2 B``) gets its category's index, and
    pixels of no segment get ``-1``.

    Args:
        data_dir: The COCO root, or ``'auto'``.
        split: ``'train'`` or ``'val'``.

    ==========  =========  =======  ==============================
    key         shape      dtype    format
    ==========  =========  =======  ==============================
    ``img``     (3, H, W)  float32  RGB, [0, 255]
    ``label``   (H, W)     int32    [-1, #class - 1]
    ==========  =========  =======  ==============================
    """

    def __init__(self, data_dir: str = "auto", split: str = "train") -> None:
        super().__init__()
        owner = type(self).__name__
        if split not in ("train", "val"):
            raise ValueError(f"{owner}: split must be 'train' or 'val', got {split!r}")
        if data_dir == "auto":
            data_dir = get_coco(split, split, "2017", "panoptic", owner)
        self.data_dir = data_dir
        self.img_root = os.path.join(data_dir, "images", f"{split}2017")
        self.label_root = os.path.join(data_dir, "annotations", f"panoptic_{split}2017")
        anno_path = os.path.join(data_dir, "annotations", f"panoptic_{split}2017.json")
        require(anno_path, owner, f"the panoptic annotation file of {split}2017")
        with open(anno_path) as f:
            annos = json.load(f)
        self.annos = annos["annotations"]
        self.cat_ids = [cat["id"] for cat in annos["categories"]]
        self._cat_index = {cat_id: i for i, cat_id in enumerate(self.cat_ids)}
        # Panoptic PNGs are named after the image, with .png for .jpg.
        self.img_paths = [
            os.path.splitext(anno["file_name"])[0] + ".jpg" for anno in self.annos
        ]
        self.add_getter("img", self._get_image)
        self.add_getter("label", self._get_label)

    def __len__(self) -> int:
        return len(self.annos)

    def _get_image(self, i: int) -> np.ndarray:
        path = os.path.join(self.img_root, self.img_paths[i])
        require(path, type(self).__name__, f"the image {self.img_paths[i]!r}")
        return read_image(path, dtype=np.float32, color=True)

    def _get_label(self, i: int) -> np.ndarray:
        anno = self.annos[i]
        path = os.path.join(self.label_root, anno["file_name"])
        require(path, type(self).__name__, f"the panoptic PNG {anno['file_name']!r}")
        rgb = read_image(path, dtype=np.int64, color=True)
        ids = rgb[0] + 256 * rgb[1] + 256 * 256 * rgb[2]
        label = np.full(ids.shape, -1, dtype=np.int32)
        for segment in anno["segments_info"]:
            label[ids == segment["id"]] = self._cat_index[segment["category_id"]]
        return label
