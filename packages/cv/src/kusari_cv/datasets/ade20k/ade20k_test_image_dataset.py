"""Images of the ADE20K test split."""

from __future__ import annotations

import glob
import os

import numpy as np

from kusari_cv.chainer_experimental.datasets.sliceable import GetterDataset
from kusari_cv.datasets.ade20k.ade20k_utils import get_ade20k, test_url
from kusari_cv.utils.image import read_image


class ADE20KTestImageDataset(GetterDataset):
    """Image dataset for the test split of ADE20K (3,352 images).

    Reads ``release_test/testing/*.jpg``. Examples are the images themselves
    (``(3, H, W)`` float32 RGB), not tuples.

    Args:
        data_dir: The folder holding ``release_test``, or ``'auto'``.
    """

    def __init__(self, data_dir: str = "auto") -> None:
        super().__init__()
        if data_dir == "auto":
            data_dir = get_ade20k(test_url, "release_test", type(self).__name__)
        img_dir = os.path.join(data_dir, "release_test", "testing")
        if not os.path.isdir(img_dir):
            raise FileNotFoundError(
                f"{type(self).__name__}: expected the folder {img_dir!r} "
                "(release_test/testing/*.jpg)"
            )
        self.img_paths = sorted(glob.glob(os.path.join(img_dir, "*.jpg")))
        self.add_getter("img", self._get_image)
        self.keys = "img"

    def __len__(self) -> int:
        return len(self.img_paths)

    def _get_image(self, i: int) -> np.ndarray:
        return read_image(self.img_paths[i])
