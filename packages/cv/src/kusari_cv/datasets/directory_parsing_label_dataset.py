"""A label dataset read from a folder per class."""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np

from kusari_cv.chainer_experimental.datasets.sliceable import GetterDataset
from kusari_cv.utils.image import read_image

_IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp")


def directory_parsing_label_names(root: str, numerical_sort: bool = False) -> list[str]:
    """Return the names of the subfolders of ``root``, sorted: the label names.

    Args:
        root: The folder with one subfolder per class.
        numerical_sort: Sort names as integers (``'2'`` before ``'10'``).

    Example:
        >>> import os, tempfile
        >>> root = tempfile.mkdtemp()
        >>> for name in ('10', '2', 'x.txt'):
        ...     os.makedirs(os.path.join(root, name)) if name != 'x.txt' else None
        >>> directory_parsing_label_names(root, numerical_sort=True)
        ['2', '10']
    """
    if not os.path.isdir(root):
        raise FileNotFoundError(
            f"directory_parsing_label_names: {root!r} is not a directory"
        )
    names = [d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d))]
    if not numerical_sort:
        return sorted(names)
    try:
        return sorted(names, key=int)
    except ValueError:
        raise ValueError(
            "directory_parsing_label_names: numerical_sort needs integer folder "
            f"names, got {sorted(names)}"
        ) from None


def _is_image(path: str) -> bool:
    return os.path.splitext(path)[1].lower() in _IMAGE_EXTENSIONS


class DirectoryParsingLabelDataset(GetterDataset):
    """A label dataset whose classes are the subfolders of ``root``.

    Every image below ``root/<class name>/`` (at any depth) is an example of
    that class; label ``k`` is the ``k``-th name of
    :func:`directory_parsing_label_names`. Files are in sorted order within
    each class.

    Args:
        root: The folder with one subfolder per class.
        check_img_file: ``check_img_file(path) -> bool`` selects the files
            to use (default: by image extension).
        color: Read images as RGB (else grayscale, one channel).
        numerical_sort: Order the class folders numerically.

    ==========  ==============  =======  ===============
    key         shape           dtype    format
    ==========  ==============  =======  ===============
    ``img``     (3 or 1, H, W)  float32  [0, 255]
    ``label``   ()              int32    [0, #class - 1]
    ==========  ==============  =======  ===============
    """

    def __init__(
        self,
        root: str,
        check_img_file: Callable[[str], bool] | None = None,
        color: bool = True,
        numerical_sort: bool = False,
    ) -> None:
        super().__init__()
        self.color = color
        check = _is_image if check_img_file is None else check_img_file
        self.img_paths: list[str] = []
        labels = []
        names = directory_parsing_label_names(root, numerical_sort)
        for label, name in enumerate(names):
            for folder, _, files in sorted(os.walk(os.path.join(root, name))):
                for file in sorted(files):
                    path = os.path.join(folder, file)
                    if check(path):
                        self.img_paths.append(path)
                        labels.append(label)
        self.labels = np.array(labels, dtype=np.int32)
        self.add_getter("img", self._get_image)
        self.add_getter("label", self._get_label)

    def __len__(self) -> int:
        return len(self.img_paths)

    def _get_image(self, i: int) -> np.ndarray:
        return read_image(self.img_paths[i], color=self.color)

    def _get_label(self, i: int) -> np.int32:
        return self.labels[i]
