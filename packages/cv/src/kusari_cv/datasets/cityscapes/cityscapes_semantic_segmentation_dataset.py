"""Cityscapes semantic segmentation."""

from __future__ import annotations

import glob
import os

import numpy as np

from kusari_cv.chainer_experimental.datasets.sliceable import GetterDataset
from kusari_cv.datasets._common import dataset_root, require
from kusari_cv.datasets.cityscapes.cityscapes_utils import cityscapes_labels
from kusari_cv.utils.image import read_image, read_label

_HOMEPAGE = "https://www.cityscapes-dataset.com/"


def _train_id_table() -> np.ndarray:
    """Lookup table from Cityscapes label ids to train ids (-1: ignored)."""
    table = np.full(256, -1, dtype=np.int32)
    for label in cityscapes_labels:
        if not label.ignoreInEval:
            table[label.id] = label.trainId
    return table


class CityscapesSemanticSegmentationDataset(GetterDataset):
    """Semantic segmentation dataset for Cityscapes.

    Cityscapes may not be redistributed: download it from the Cityscapes
    site and unpack ``leftImg8bit`` and ``gtFine`` (or ``gtCoarse``) into one
    folder. Pairs are ``leftImg8bit/<split>/<city>/<name>_leftImg8bit.png``
    and ``gtFine/<split>/<city>/<name>_gtFine_labelIds.png``.

    Args:
        data_dir: That folder, or ``'auto'`` for
            ``<dataset root>/pfnet/chainercv/cityscapes``.
        label_resolution: ``'fine'`` or ``'coarse'``.
        split: ``'train'``, ``'val'`` (or ``'train_extra'`` for coarse).
        ignore_labels: Map label ids to the 19 evaluation classes (train
            ids) and everything else to ``-1``; if False, return raw ids.

    ==========  =========  =======  ==============================
    key         shape      dtype    format
    ==========  =========  =======  ==============================
    ``img``     (3, H, W)  float32  RGB, [0, 255]
    ``label``   (H, W)     int32    [-1, #class - 1]
    ==========  =========  =======  ==============================
    """

    def __init__(
        self,
        data_dir: str = "auto",
        label_resolution: str | None = None,
        split: str = "train",
        ignore_labels: bool = True,
    ) -> None:
        super().__init__()
        owner = type(self).__name__
        if label_resolution not in ("fine", "coarse"):
            raise ValueError(
                f"{owner}: label_resolution must be 'fine' or 'coarse', got "
                f"{label_resolution!r}"
            )
        if data_dir == "auto":
            data_dir = dataset_root("cityscapes")
        resolution = "gtFine" if label_resolution == "fine" else "gtCoarse"
        img_dir = os.path.join(data_dir, "leftImg8bit", split)
        label_dir = os.path.join(data_dir, resolution, split)
        for path, what in ((img_dir, "leftImg8bit"), (label_dir, resolution)):
            if not os.path.isdir(path):
                raise FileNotFoundError(
                    f"{owner}: expected the {what} folder of split {split!r} at "
                    f"{path!r}; Cityscapes must be downloaded by hand from "
                    f"{_HOMEPAGE} and unpacked into data_dir"
                )
        self.ignore_labels = ignore_labels
        self._table = _train_id_table()
        suffix = f"_{resolution}_labelIds.png"
        self.label_paths = sorted(glob.glob(os.path.join(label_dir, "*", "*" + suffix)))
        self.img_paths = [
            os.path.join(
                img_dir,
                os.path.basename(os.path.dirname(path)),
                os.path.basename(path)[: -len(suffix)] + "_leftImg8bit.png",
            )
            for path in self.label_paths
        ]
        self.add_getter("img", self._get_image)
        self.add_getter("label", self._get_label)

    def __len__(self) -> int:
        return len(self.img_paths)

    def _get_image(self, i: int) -> np.ndarray:
        require(self.img_paths[i], type(self).__name__, "the image of a label file")
        return read_image(self.img_paths[i])

    def _get_label(self, i: int) -> np.ndarray:
        label = read_label(self.label_paths[i], dtype=np.int32)
        if not self.ignore_labels:
            return label
        return self._table[np.clip(label, 0, 255)]
