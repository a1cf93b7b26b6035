"""Datasets of image files (read with Pillow, an optional dependency).

Images are returned as ``(channels, height, width)`` arrays; grayscale
images get one channel.
"""

from __future__ import annotations

import io
import os
import threading
import zipfile
from collections.abc import Sequence
from typing import Any

import numpy

from kusari.dataset.dataset_mixin import DatasetMixin
from kusari.datasets._mnist_common import get_dtype

#: Whether Pillow can be imported, i.e. whether these datasets can read
#: images (Chainer's flag of the same name; Chainer-style tests skip on it).
available: bool
try:
    import PIL.Image  # noqa: F401  (only probed here; _import_pil reads it)
except ImportError:
    available = False
else:
    available = True


def _import_pil(caller: str) -> Any:
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError(
            f"{caller} needs Pillow to read images, which is not installed; "
            "install it with `pip install pillow` (or `pip install kusari[image]`)"
        ) from e
    return Image


def _read_image(source: Any, dtype: Any, caller: str) -> numpy.ndarray:
    Image = _import_pil(caller)
    with Image.open(source) as f:
        image = numpy.asarray(f, dtype=dtype)
    if image.ndim == 2:
        return image[numpy.newaxis]
    return image.transpose(2, 0, 1)


def _default_dtype(dtype: Any) -> numpy.dtype:
    # None means the configured default (``config.dtype``, float16 under
    # mixed16), read when the dataset is made, as Chainer does: a script that
    # sets ``config.dtype = 'float16'`` first gets float16 images that its
    # float16 parameters accept.
    return get_dtype(dtype)


def _read_list_file(path: str) -> list[list[str]]:
    rows = []
    with open(path) as f:
        for line_no, line in enumerate(f, 1):
            parts = line.strip().split()
            if not parts:
                continue
            rows.append(parts + [str(line_no)])
    return rows


class ImageDataset(DatasetMixin):
    """Dataset of image files, returned as float ``(C, H, W)`` arrays.

    Args:
        paths: A list of image paths, or the path of a text file listing one
            image path per line.
        root: Directory prepended to every path.
        dtype: Array dtype (default: ``config.dtype``, float32 unless set).

    Example:
        >>> d = ImageDataset(['a.png', 'b.png'], root='images')
        >>> len(d)
        2
    """

    def __init__(
        self, paths: str | Sequence[str], root: str = ".", dtype: Any = None
    ) -> None:
        _import_pil("ImageDataset")
        if isinstance(paths, str):
            paths = [row[0] for row in _read_list_file(paths)]
        self._paths = list(paths)
        self._root = root
        self._dtype = _default_dtype(dtype)

    def __repr__(self) -> str:
        return f"ImageDataset(len={len(self)}, root={self._root!r})"

    def __len__(self) -> int:
        return len(self._paths)

    def get_example(self, i: int) -> numpy.ndarray:
        path = os.path.join(self._root, self._paths[i])
        return _read_image(path, self._dtype, "ImageDataset")


class LabeledImageDataset(DatasetMixin):
    """Dataset of ``(image, label)`` pairs.

    Args:
        pairs: A list of ``(path, int_label)`` pairs, or the path of a text
            file whose lines are ``<path> <int label>``.
        root: Directory prepended to every path.
        dtype: Image dtype (default: ``config.dtype``, float32 unless set).
        label_dtype: Label dtype.

    Example:
        >>> d = LabeledImageDataset([('a.png', 0), ('b.png', 1)])
        >>> len(d)
        2
    """

    def __init__(
        self,
        pairs: str | Sequence[tuple[str, int]],
        root: str = ".",
        dtype: Any = None,
        label_dtype: Any = numpy.int32,
    ) -> None:
        _import_pil("LabeledImageDataset")
        if isinstance(pairs, str):
            list_path = pairs
            parsed = []
            for row in _read_list_file(list_path):
                if len(row) != 3:
                    raise ValueError(
                        f"LabeledImageDataset: line {row[-1]} of {list_path!r} must "
                        "be '<path> <int label>'"
                    )
                try:
                    parsed.append((row[0], int(row[1])))
                except ValueError as e:
                    raise ValueError(
                        f"LabeledImageDataset: line {row[-1]} of {list_path!r}: "
                        f"label {row[1]!r} is not an integer"
                    ) from e
            pairs = parsed
        self._pairs = list(pairs)
        self._root = root
        self._dtype = _default_dtype(dtype)
        self._label_dtype = label_dtype

    def __repr__(self) -> str:
        return f"LabeledImageDataset(len={len(self)}, root={self._root!r})"

    def __len__(self) -> int:
        return len(self._pairs)

    def get_example(self, i: int) -> tuple[numpy.ndarray, numpy.ndarray]:
        path, label = self._pairs[i]
        image = _read_image(
            os.path.join(self._root, path), self._dtype, "LabeledImageDataset"
        )
        return image, numpy.array(label, dtype=self._label_dtype)


class ZippedImageDataset(DatasetMixin):
    """Dataset of the image files inside a zip archive.

    The archive is reopened in each process (after ``fork`` or unpickling),
    so the dataset works with :class:`~kusari.iterators.MultiprocessIterator`.

    Args:
        zipfilename: Path of the zip file.
        dtype: Image dtype (default: ``config.dtype``, float32 unless set).

    Example:
        >>> d = ZippedImageDataset('images.zip')  # doctest: +SKIP
        >>> d[0].shape  # doctest: +SKIP
        (3, 32, 32)
    """

    def __init__(self, zipfilename: str, dtype: Any = None) -> None:
        _import_pil("ZippedImageDataset")
        self._zipfilename = zipfilename
        self._dtype = _default_dtype(dtype)
        self._lock = threading.Lock()
        self._zf: zipfile.ZipFile | None = None
        self._zf_pid: int | None = None
        self._paths = [n for n in self._zipfile().namelist() if not n.endswith("/")]

    def __repr__(self) -> str:
        return f"ZippedImageDataset({self._zipfilename!r}, len={len(self)})"

    def _zipfile(self) -> zipfile.ZipFile:
        # A ZipFile's file position is shared with a forked parent; reopen.
        if self._zf is None or self._zf_pid != os.getpid():
            self._zf = zipfile.ZipFile(self._zipfilename)
            self._zf_pid = os.getpid()
        return self._zf

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_zf"] = None
        state["_zf_pid"] = None
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._paths)

    def paths(self) -> list[str]:
        """Return the names of the images inside the archive."""
        return list(self._paths)

    def get_example(self, i_or_filename: int | str) -> numpy.ndarray:
        if isinstance(i_or_filename, str):
            name = i_or_filename
        else:
            name = self._paths[i_or_filename]
        with self._lock:
            data = self._zipfile().read(name)
        return _read_image(io.BytesIO(data), self._dtype, "ZippedImageDataset")


class MultiZippedImageDataset(DatasetMixin):
    """The images of several zip archives, one archive after another.

    Example:
        >>> d = MultiZippedImageDataset(['a.zip', 'b.zip'])  # doctest: +SKIP
    """

    def __init__(self, zipfilenames: Sequence[str], dtype: Any = None) -> None:
        self._datasets = [ZippedImageDataset(z, dtype) for z in zipfilenames]
        self._offsets = numpy.cumsum([0] + [len(d) for d in self._datasets])

    def __repr__(self) -> str:
        return f"MultiZippedImageDataset(n_zips={len(self._datasets)}, len={len(self)})"

    def __len__(self) -> int:
        return int(self._offsets[-1])

    def get_example(self, i: int) -> numpy.ndarray:
        n = len(self)
        if not -n <= i < n:
            raise IndexError(
                f"MultiZippedImageDataset: index {i} is out of range for length {n}"
            )
        i %= n
        which = int(numpy.searchsorted(self._offsets, i, side="right")) - 1
        return self._datasets[which][i - int(self._offsets[which])]


class LabeledZippedImageDataset(DatasetMixin):
    """``(image, label)`` pairs from a zip archive and a label list file.

    Args:
        zipfilename: Path of the zip file.
        labelfilename: Text file whose lines are ``<name in zip> <int label>``.
        dtype: Image dtype (default: ``config.dtype``, float32 unless set).
        label_dtype: Label dtype.

    Example:
        >>> d = LabeledZippedImageDataset('img.zip', 'labels.txt')  # doctest: +SKIP
    """

    def __init__(
        self,
        zipfilename: str,
        labelfilename: str,
        dtype: Any = None,
        label_dtype: Any = numpy.int32,
    ) -> None:
        self._images = ZippedImageDataset(zipfilename, dtype)
        self._label_dtype = label_dtype
        self._pairs = []
        for row in _read_list_file(labelfilename):
            if len(row) != 3:
                raise ValueError(
                    f"LabeledZippedImageDataset: line {row[-1]} of "
                    f"{labelfilename!r} must be '<name> <int label>'"
                )
            self._pairs.append((row[0], int(row[1])))

    def __repr__(self) -> str:
        return f"LabeledZippedImageDataset(len={len(self)})"

    def __len__(self) -> int:
        return len(self._pairs)

    def get_example(self, i: int) -> tuple[numpy.ndarray, numpy.ndarray]:
        name, label = self._pairs[i]
        return self._images.get_example(name), numpy.array(
            label, dtype=self._label_dtype
        )
