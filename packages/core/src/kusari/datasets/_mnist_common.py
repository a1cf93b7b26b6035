"""Shared loading code for MNIST-format datasets (gzipped IDX files)."""

from __future__ import annotations

import gzip
import hashlib
import os
import struct
from collections.abc import Sequence
from typing import Any

import numpy

from kusari.dataset import download
from kusari.datasets.tuple_dataset import TupleDataset

_IMAGES_MAGIC = 2051
_LABELS_MAGIC = 2049


def get_dtype(dtype: Any) -> numpy.dtype:
    """Resolve ``None`` to the configured default float dtype (float32)."""
    if dtype is None:
        import kusari

        getter = getattr(kusari, "get_dtype", None)
        dtype = getter(None) if getter is not None else numpy.float32
    return numpy.dtype(dtype)


def gz_payload_sha256(path: str) -> str:
    """SHA-256 of a gzip file's decompressed bytes.

    Mirrors re-compress the files, so the gzip bytes differ while the IDX
    payload is the same; checking the payload accepts every mirror.
    """
    digest = hashlib.sha256()
    with gzip.open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _read_idx(path: str, magic: int) -> tuple[numpy.ndarray, tuple[int, ...]]:
    try:
        with gzip.open(path, "rb") as f:
            data = f.read()
    except (OSError, EOFError) as e:
        raise ValueError(f"{path!r} is not a valid gzip file: {e}") from e
    ndim = 3 if magic == _IMAGES_MAGIC else 1
    header = 4 + 4 * ndim
    if len(data) < header or struct.unpack(">i", data[:4])[0] != magic:
        raise ValueError(f"{path!r} is not an IDX file with magic number {magic}")
    dims = struct.unpack(f">{ndim}i", data[4:header])
    body = numpy.frombuffer(data, dtype=numpy.uint8, offset=header)
    if body.size != int(numpy.prod(dims)):
        raise ValueError(
            f"{path!r} is truncated: the header says {dims}, got {body.size} bytes"
        )
    return body, dims


def read_idx_images(path: str) -> numpy.ndarray:
    """Read a gzipped IDX image file as a ``(N, rows * cols)`` uint8 array."""
    body, (n, rows, cols) = _read_idx(path, _IMAGES_MAGIC)
    return body.reshape(n, rows * cols)


def read_idx_labels(path: str) -> numpy.ndarray:
    """Read a gzipped IDX label file as a ``(N,)`` uint8 array."""
    body, _ = _read_idx(path, _LABELS_MAGIC)
    return body.copy()


class RawSource:
    """Where the four raw files of an MNIST-like dataset come from."""

    def __init__(
        self,
        directory: str,
        env_var: str,
        base_urls: Sequence[str],
        payload_sha256: dict[str, str] | None = None,
    ) -> None:
        self.directory = directory
        self.env_var = env_var
        self.base_urls = tuple(base_urls)
        self.payload_sha256 = payload_sha256 or {}

    def bases(self) -> tuple[str, ...]:
        override = os.environ.get(self.env_var)
        return (override,) if override else self.base_urls

    def _verifier(self, filename: str) -> Any:
        expected = self.payload_sha256.get(filename)
        if expected is None:
            return None
        return lambda path: gz_payload_sha256(path) == expected

    def fetch(self, filename: str) -> str:
        """Return a local path of ``filename``: from the cache or downloaded.

        A copy already placed in the dataset directory (e.g. by
        :func:`kusari.datasets.mnist.install_mnist`) is used without any
        network access.
        """
        local = os.path.join(download.get_dataset_directory(self.directory), filename)
        if os.path.exists(local):
            check = self._verifier(filename)
            if check is not None and not check(local):
                raise ValueError(
                    f"{local!r} does not match the known checksum of {filename}; "
                    "delete it to download a fresh copy"
                )
            return local
        errors = []
        for base in self.bases():
            url = base.rstrip("/") + "/" + filename
            try:
                return download.cached_download(url, verify=self._verifier(filename))
            except download.DownloadError as e:
                errors.append(str(e))
        raise download.DownloadError(
            f"cannot obtain {filename}: " + "; ".join(errors) + f". Set "
            f"{self.env_var} to a mirror, or put the file in {local!r}"
        )


def load_xy(path: str, np_module: Any = numpy) -> dict[str, numpy.ndarray]:
    """Read the ``x`` and ``y`` arrays of a cached npz file.

    ``np_module`` is the dataset module's ``numpy``, looked up when the
    dataset is loaded, so that a test patching e.g.
    ``kusari.datasets.mnist.numpy`` (as Chainer's own tests patch
    ``chainer.datasets.mnist.numpy``) sees the cache being read.
    """
    # Open the file ourselves: numpy.load(path) leaks its handle when the
    # file turns out not to be a zip.
    with open(path, "rb") as raw, np_module.load(raw, allow_pickle=False) as f:
        return {"x": f["x"], "y": f["y"]}


def retrieve(
    source: RawSource,
    npz_name: str,
    images_file: str,
    labels_file: str,
    np_module: Any = numpy,
) -> dict[str, numpy.ndarray]:
    """Load ``{'x': images, 'y': labels}``, building ``npz_name`` once.

    The npz file has Chainer's layout (``x``: ``(N, 784)`` uint8, ``y``:
    ``(N,)`` uint8), so a cache built by either library serves both.
    """

    def create(path: str) -> dict[str, numpy.ndarray]:
        x = read_idx_images(source.fetch(images_file))
        y = read_idx_labels(source.fetch(labels_file))
        if len(x) != len(y):
            raise ValueError(
                f"{images_file} has {len(x)} images but {labels_file} has "
                f"{len(y)} labels"
            )
        with open(path, "wb") as f:
            numpy.savez_compressed(f, x=x, y=y, allow_pickle=False)
        return {"x": x, "y": y}

    path = os.path.join(download.get_dataset_directory(source.directory), npz_name)
    return download.cache_or_load_file(path, create, lambda p: load_xy(p, np_module))


def preprocess(
    raw: dict[str, numpy.ndarray],
    withlabel: bool,
    ndim: int,
    scale: float,
    dtype: Any,
    label_dtype: Any,
    rgb_format: bool,
    caller: str,
) -> Any:
    """Reshape and scale raw MNIST-like data the way Chainer does."""
    images = raw["x"]
    if ndim == 2:
        images = images.reshape(-1, 28, 28)
    elif ndim == 3:
        images = images.reshape(-1, 1, 28, 28)
        if rgb_format:
            images = numpy.broadcast_to(images, (len(images), 3, 28, 28))
    elif ndim != 1:
        raise ValueError(f"{caller}: ndim must be 1, 2 or 3, got {ndim!r}")
    # rgb_format only means something with ndim=3; Chainer ignores it otherwise.
    images = images.astype(get_dtype(dtype))
    images *= scale / 255.0
    if withlabel:
        return TupleDataset(images, raw["y"].astype(label_dtype))
    return images


#: The four raw files of every MNIST-like dataset, by role.
FILES = {
    "train_x": "train-images-idx3-ubyte.gz",
    "train_y": "train-labels-idx1-ubyte.gz",
    "test_x": "t10k-images-idx3-ubyte.gz",
    "test_y": "t10k-labels-idx1-ubyte.gz",
}


def load_mnist_like(
    source: RawSource,
    withlabel: bool,
    ndim: int,
    scale: float,
    dtype: Any,
    label_dtype: Any,
    rgb_format: bool,
    caller: str,
    np_module: Any = numpy,
) -> tuple[Any, Any]:
    """The ``(train, test)`` pair of an MNIST-like dataset, preprocessed."""
    train = retrieve(source, "train.npz", FILES["train_x"], FILES["train_y"], np_module)
    test = retrieve(source, "test.npz", FILES["test_x"], FILES["test_y"], np_module)
    args = (withlabel, ndim, scale, dtype, label_dtype, rgb_format, caller)
    return preprocess(train, *args), preprocess(test, *args)
