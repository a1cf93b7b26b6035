"""Semantic Boundaries Dataset (SBD) instance segmentation."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from kusari_cv.datasets._common import (
    ImageIdsDataset,
    check_split,
    read_lines,
    require,
)
from kusari_cv.datasets.sbd import sbd_utils
from kusari_cv.datasets.voc import voc_utils


def _load_segmentation(path: str, struct: str, owner: str) -> np.ndarray:
    """Read ``<struct>.Segmentation`` from one of SBD's MATLAB files."""
    try:
        import scipy.io
    except ImportError as e:  # scipy is the optional 'sbd' extra
        raise ImportError(
            f"{owner} reads MATLAB files with scipy; install it with "
            "`pip install kusari-cv[sbd]`"
        ) from e
    data: dict[str, Any] = scipy.io.loadmat(path)
    if struct not in data:
        raise ValueError(
            f"{owner}: {path!r} has no {struct!r} struct (found "
            f"{sorted(k for k in data if not k.startswith('__'))})"
        )
    return np.asarray(data[struct]["Segmentation"][0][0], dtype=np.int32)


class SBDInstanceSegmentationDataset(ImageIdsDataset):
    """Instance segmentation dataset for the Semantic Boundaries Dataset.

    Reads ``<split>_voc2012.txt``, ``img/<id>.jpg`` and the MATLAB files
    ``cls/<id>.mat`` (struct ``GTcls``) and ``inst/<id>.mat`` (struct
    ``GTinst``) of ``benchmark_RELEASE/dataset``. Needs scipy.

    Args:
        data_dir: The ``benchmark_RELEASE/dataset`` folder, or ``'auto'``.
        split: ``'train'``, ``'val'`` or ``'trainval'`` (the VOC2012-aware
            lists: ``train`` excludes VOC2012 val images).

    ==========  ============  =======  =====================
    key         shape         dtype    format
    ==========  ============  =======  =====================
    ``img``     (3, H, W)     float32  RGB, [0, 255]
    ``mask``    (R, H, W)     bool     --
    ``label``   (R,)          int32    [0, #fg_class - 1]
    ==========  ============  =======  =====================
    """

    _image_dir = "img"

    def __init__(self, data_dir: str = "auto", split: str = "train") -> None:
        super().__init__()
        owner = type(self).__name__
        check_split(split, owner)
        if data_dir == "auto":
            data_dir = sbd_utils.get_sbd(owner)
        self.data_dir = data_dir
        self.ids = read_lines(
            os.path.join(data_dir, f"{split}_voc2012.txt"),
            owner,
            f"the list of {split!r} image ids",
        )
        self.add_getter("img", self._get_image)
        self.add_getter(("mask", "label"), self._get_annotations)

    def _get_annotations(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        owner = type(self).__name__
        cls_path = os.path.join(self.data_dir, "cls", self.ids[i] + ".mat")
        inst_path = os.path.join(self.data_dir, "inst", self.ids[i] + ".mat")
        require(cls_path, owner, f"the class map (GTcls) of {self.ids[i]!r}")
        require(inst_path, owner, f"the instance map (GTinst) of {self.ids[i]!r}")
        label_img = _load_segmentation(cls_path, "GTcls", owner)
        inst_img = _load_segmentation(inst_path, "GTinst", owner)
        inst_img[(inst_img == 0) | (inst_img == 255)] = -1
        return voc_utils.image_wise_to_instance_wise(label_img, inst_img, inst_path)
