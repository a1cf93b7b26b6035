"""Stanford Online Products (metric learning)."""

from __future__ import annotations

import os

import numpy as np

from kusari_cv.chainer_experimental.datasets.sliceable import GetterDataset
from kusari_cv.datasets._common import prepare, read_lines, require
from kusari_cv.utils.image import read_image

url = "ftp://cs.stanford.edu/cs/cvgl/Stanford_Online_Products.zip"

online_products_super_label_names = (
    "bicycle", "cabinet", "chair", "coffee_maker", "fan", "kettle", "lamp",
    "mug", "sofa", "stapler", "table", "toaster",
)  # fmt: skip


def get_online_products(owner: str = "get_online_products") -> str:
    """Return the ``Stanford_Online_Products`` folder, downloading it."""

    def ready(root: str) -> bool:
        return os.path.exists(
            os.path.join(root, "Stanford_Online_Products", "Ebay_train.txt")
        )

    root = prepare("online_products", owner, ready, [(url, None)])
    return os.path.join(root, "Stanford_Online_Products")


class OnlineProductsDataset(GetterDataset):
    """Stanford Online Products: 120,053 images of 22,634 products.

    Reads ``Ebay_<split>.txt`` (a header, then ``<image id> <class id>
    <super class id> <path>``) and the images it lists.

    Args:
        data_dir: The ``Stanford_Online_Products`` folder, or ``'auto'``.
        split: ``'train'`` or ``'test'``.

    ==================  =========  =======  ===============================
    key                 shape      dtype    format
    ==================  =========  =======  ===============================
    ``img``             (3, H, W)  float32  RGB, [0, 255]
    ``label``           ()         int32    [0, #class - 1]
    ``super_label``     ()         int32    [0, #super_class - 1]
    ==================  =========  =======  ===============================
    """

    def __init__(self, data_dir: str = "auto", split: str = "train") -> None:
        super().__init__()
        owner = type(self).__name__
        if split not in ("train", "test"):
            raise ValueError(f"{owner}: split must be 'train' or 'test', got {split!r}")
        if data_dir == "auto":
            data_dir = get_online_products(owner)
        self.data_dir = data_dir
        path = os.path.join(data_dir, f"Ebay_{split}.txt")
        lines = read_lines(path, owner, f"the {split!r} list")
        self.paths: list[str] = []
        labels, super_labels = [], []
        for line in lines[1:]:  # the first line is a header
            fields = line.split()
            if len(fields) != 4:
                raise ValueError(
                    f"{owner}: each line of {path!r} must be '<image id> <class "
                    f"id> <super class id> <path>', got {line!r}"
                )
            labels.append(int(fields[1]) - 1)  # ids start at 1
            super_labels.append(int(fields[2]) - 1)
            self.paths.append(fields[3])
        self._labels = np.array(labels, dtype=np.int32)
        self._super_labels = np.array(super_labels, dtype=np.int32)
        self.add_getter("img", self._get_image)
        self.add_getter("label", self._get_label)
        self.add_getter("super_label", self._get_super_label)

    def __len__(self) -> int:
        return len(self.paths)

    def _get_image(self, i: int) -> np.ndarray:
        path = os.path.join(self.data_dir, self.paths[i])
        require(path, type(self).__name__, f"the image {self.paths[i]!r}")
        return read_image(path, color=True)

    def _get_label(self, i: int) -> np.int32:
        return self._labels[i]

    def _get_super_label(self, i: int) -> np.int32:
        return self._super_labels[i]
