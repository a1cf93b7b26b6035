"""ADE20K semantic segmentation (MIT Scene Parsing Benchmark)."""

from __future__ import annotations

import glob
import os

import numpy as np

from kusari_cv.chainer_experimental.datasets.sliceable import GetterDataset
from kusari_cv.datasets.ade20k.ade20k_utils import get_ade20k, trainval_url
from kusari_cv.utils.image import read_image, read_label


class ADE20KSemanticSegmentationDataset(GetterDataset):
    """Semantic segmentation dataset for ADE20K (20,210 train, 2,000 val).

    Reads ``ADEChallengeData2016/images/<training|validation>/*.jpg`` and
    the matching ``annotations/.../*.png``, where 0 means "other"; labels are
    shifted so that "other" becomes ``-1``.

    Args:
        data_dir: The folder holding ``ADEChallengeData2016``, or ``'auto'``.
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
            data_dir = get_ade20k(trainval_url, "ADEChallengeData2016", owner)
        sub = "training" if split == "train" else "validation"
        base = os.path.join(data_dir, "ADEChallengeData2016")
        img_dir = os.path.join(base, "images", sub)
        label_dir = os.path.join(base, "annotations", sub)
        for path in (img_dir, label_dir):
            if not os.path.isdir(path):
                raise FileNotFoundError(
                    f"{owner}: expected the folder {path!r} (ADEChallengeData2016 "
                    "layout: images/ and annotations/, each with training/ and "
                    "validation/)"
                )
        self.img_paths = sorted(glob.glob(os.path.join(img_dir, "*.jpg")))
        self.label_paths = sorted(glob.glob(os.path.join(label_dir, "*.png")))
        img_names = [os.path.splitext(os.path.basename(p))[0] for p in self.img_paths]
        label_names = [
            os.path.splitext(os.path.basename(p))[0] for p in self.label_paths
        ]
        if img_names != label_names:
            missing = sorted(set(img_names) ^ set(label_names))[:5]
            raise FileNotFoundError(
                f"{owner}: images and annotations of {split!r} do not pair up "
                f"one to one; unmatched names include {missing}"
            )
        self.add_getter("img", self._get_image)
        self.add_getter("label", self._get_label)

    def __len__(self) -> int:
        return len(self.img_paths)

    def _get_image(self, i: int) -> np.ndarray:
        return read_image(self.img_paths[i])

    def _get_label(self, i: int) -> np.ndarray:
        # 0 is "other objects" in the PNGs; the 150 classes start at 1.
        return read_label(self.label_paths[i], dtype=np.int32) - 1
