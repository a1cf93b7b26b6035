"""Images of the Cityscapes test split."""

from __future__ import annotations

import glob
import os

import numpy as np

from kusari_cv.chainer_experimental.datasets.sliceable import GetterDataset
from kusari_cv.datasets._common import dataset_root
from kusari_cv.utils.image import read_image


class CityscapesTestImageDataset(GetterDataset):
    """Image dataset for the test split of Cityscapes.

    Reads ``leftImg8bit/test/<city>/*_leftImg8bit.png`` (downloaded by hand
    from the Cityscapes site). Examples are the images themselves
    (``(3, H, W)`` float32 RGB), not tuples.

    Args:
        data_dir: The folder holding ``leftImg8bit``, or ``'auto'`` for
            ``<dataset root>/pfnet/chainercv/cityscapes``.
    """

    def __init__(self, data_dir: str = "auto") -> None:
        super().__init__()
        if data_dir == "auto":
            data_dir = dataset_root("cityscapes")
        img_dir = os.path.join(data_dir, "leftImg8bit", "test")
        if not os.path.isdir(img_dir):
            raise FileNotFoundError(
                f"{type(self).__name__}: expected the leftImg8bit test folder at "
                f"{img_dir!r}; Cityscapes must be downloaded by hand from "
                "https://www.cityscapes-dataset.com/ and unpacked into data_dir"
            )
        self.img_paths = sorted(
            glob.glob(os.path.join(img_dir, "*", "*_leftImg8bit.png"))
        )
        self.add_getter("img", self._get_image)
        self.keys = "img"  # examples are images, not 1-tuples

    def __len__(self) -> int:
        return len(self.img_paths)

    def _get_image(self, i: int) -> np.ndarray:
        return read_image(self.img_paths[i])
