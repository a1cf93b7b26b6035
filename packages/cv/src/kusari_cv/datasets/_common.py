"""Shared plumbing of the data set classes: file checks and auto-download.

Every data set accepts ``data_dir='auto'``: the data are looked up in the
dataset cache (``<dataset root>/pfnet/chainercv/<name>``), downloaded and
extracted there under an inter-process lock when missing, and any failure
names the data set, the URL and the way out (pass ``data_dir=``).
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np

import kusari
from kusari.dataset.download import DownloadError
from kusari_cv.chainer_experimental.datasets.sliceable import GetterDataset
from kusari_cv.utils.download import cached_download, extractall, file_lock
from kusari_cv.utils.image import read_image

#: Dataset-cache subdirectory shared by all ChainerCV data sets.
DATASET_PREFIX = "pfnet/chainercv"


def dataset_root(name: str) -> str:
    """Return (and create) ``<dataset root>/pfnet/chainercv/<name>``."""
    return kusari.dataset.get_dataset_directory(f"{DATASET_PREFIX}/{name}")


def require(path: str, owner: str, what: str) -> str:
    """Return ``path`` if it exists, else raise an error describing it."""
    if not os.path.exists(path):
        raise FileNotFoundError(
            f"{owner}: expected {what} at {path!r}, but it does not exist; "
            "check data_dir and the data set's folder layout"
        )
    return path


def select_keys(keys: tuple[str, ...], **optional: bool) -> tuple[str, ...]:
    """``keys``, then the names of ``optional`` whose flag is true, in the
    order given: what a data set with ``return_<name>`` options returns."""
    return keys + tuple(name for name, wanted in optional.items() if wanted)


def check_split(split: str, owner: str) -> None:
    """Raise unless ``split`` is ``'train'``, ``'trainval'`` or ``'val'``."""
    if split not in ("train", "trainval", "val"):
        raise ValueError(
            f"{owner}: split must be 'train', 'trainval' or 'val', got {split!r}"
        )


class ImageIdsDataset(GetterDataset):
    """A sliceable data set over the image ids ``self.ids``, whose RGB images
    are ``<self.data_dir>/<_image_dir>/<id>.jpg``; ``_get_image`` reads one."""

    _image_dir = "JPEGImages"
    data_dir: str
    ids: list[str]

    def __len__(self) -> int:
        return len(self.ids)

    def _get_image(self, i: int) -> np.ndarray:
        path = os.path.join(self.data_dir, self._image_dir, self.ids[i] + ".jpg")
        require(path, type(self).__name__, f"the image of {self.ids[i]!r}")
        return read_image(path, color=True)


def read_lines(path: str, owner: str, what: str) -> list[str]:
    """Return the stripped, non-empty lines of a text file that must exist."""
    require(path, owner, what)
    with open(path) as f:
        return [line.strip() for line in f if line.strip()]


def prepare(
    name: str,
    owner: str,
    ready: Callable[[str], bool],
    downloads: list[tuple[str, str | None]],
    extract_to: Callable[[str], str] | None = None,
    finish: Callable[[str], None] | None = None,
) -> str:
    """Make sure data set ``name`` is present in the cache; return its root.

    Args:
        name: Cache subdirectory under ``pfnet/chainercv``.
        owner: Class name for error messages.
        ready: ``ready(root)`` is True when nothing needs downloading.
        downloads: ``(url, md5 or None)`` archives to fetch and extract.
        extract_to: Maps the root to the extraction directory (default: the
            root itself).
        finish: ``finish(root)`` runs under the lock after extraction (to
            move folders into place or derive files).
    """
    root = dataset_root(name)
    if ready(root):
        return root
    lock_dir = kusari.dataset.get_dataset_directory(f"{DATASET_PREFIX}/.lock")
    with file_lock(os.path.join(lock_dir, f"{name}.lock")):
        if ready(root):  # another process finished while we waited
            return root
        for url, md5 in downloads:
            path = download(url, owner, root, md5)
            destination = root if extract_to is None else extract_to(root)
            extractall(path, destination, archive_ext(url))
        if finish is not None:
            finish(root)
    return root


def download(url: str, owner: str, root: str, md5: str | None = None) -> str:
    """:func:`cached_download` with an error that says what to do offline."""
    try:
        return cached_download(url, md5=md5)
    except DownloadError as e:
        raise DownloadError(
            f"{owner}: the data set is not in {root!r} and could not be "
            f"downloaded ({e}). Download {url} by hand and pass data_dir= "
            "to the folder that holds it."
        ) from e


def archive_ext(url: str) -> str:
    """Return the archive extension of ``url`` as :func:`extractall` wants it."""
    return os.path.splitext(url)[1]
