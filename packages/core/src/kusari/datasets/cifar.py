"""CIFAR-10 and CIFAR-100 (32x32 colour images).

kusari reads the *binary* releases, which need no unpickling (Chainer read
the pickled "python" release). The base URL is the module constant
:data:`CIFAR_BASE_URL`, overridable with ``$KUSARI_CIFAR_BASE_URL``.
"""

from __future__ import annotations

import os
import tarfile
from typing import Any

import numpy

from kusari.dataset import download
from kusari.datasets._mnist_common import get_dtype
from kusari.datasets.tuple_dataset import TupleDataset

#: Where ``cifar-10-binary.tar.gz`` and ``cifar-100-binary.tar.gz`` live.
CIFAR_BASE_URL = "https://www.cs.toronto.edu/~kriz/"

_PIXELS = 3 * 32 * 32
_LAYOUT = {
    # name: (archive, label bytes per record, label byte used, train, test)
    "cifar-10": (
        "cifar-10-binary.tar.gz",
        1,
        0,
        [f"cifar-10-batches-bin/data_batch_{i}.bin" for i in range(1, 6)],
        ["cifar-10-batches-bin/test_batch.bin"],
    ),
    "cifar-100": (
        "cifar-100-binary.tar.gz",
        2,
        1,  # the fine label, as in Chainer
        ["cifar-100-binary/train.bin"],
        ["cifar-100-binary/test.bin"],
    ),
}


def _parse_records(data: bytes, n_label: int, label_at: int, where: str) -> Any:
    record = n_label + _PIXELS
    if len(data) % record:
        raise ValueError(f"{where} is truncated ({len(data)} bytes)")
    table = numpy.frombuffer(data, dtype=numpy.uint8).reshape(-1, record)
    return table[:, n_label:].copy(), table[:, label_at].copy()


def _read_archive(path: str, name: str) -> dict[str, numpy.ndarray]:
    archive, n_label, label_at, train_members, test_members = _LAYOUT[name]
    out: dict[str, numpy.ndarray] = {}
    try:
        tar = tarfile.open(path, "r:gz")
    except (tarfile.TarError, OSError, EOFError) as e:
        raise ValueError(f"{archive} at {path!r} is not a valid tar.gz: {e}") from e
    with tar:
        for split, members in (("train", train_members), ("test", test_members)):
            xs, ys = [], []
            for member in members:
                f = tar.extractfile(member)  # read in memory: nothing hits disk
                if f is None:
                    raise ValueError(f"{archive} lacks {member}")
                x, y = _parse_records(f.read(), n_label, label_at, member)
                xs.append(x)
                ys.append(y)
            out[f"{split}_x"] = numpy.concatenate(xs)
            out[f"{split}_y"] = numpy.concatenate(ys)
    return out


def _retrieve(name: str, np_module: Any) -> dict[str, numpy.ndarray]:
    archive = _LAYOUT[name][0]

    def create(path: str) -> dict[str, numpy.ndarray]:
        base = download.env_base_url("KUSARI_CIFAR_BASE_URL", CIFAR_BASE_URL)
        raw = download.cached_download(base.rstrip("/") + "/" + archive)
        data = _read_archive(raw, name)
        with open(path, "wb") as f:
            numpy.savez_compressed(f, allow_pickle=False, **data)
        return data

    def load(path: str) -> dict[str, numpy.ndarray]:
        # np_module is this module's numpy, looked up by get_cifar*, so that
        # a test patching kusari.datasets.cifar.numpy sees the cache read.
        with np_module.load(path, allow_pickle=False) as f:
            return {k: f[k] for k in ("train_x", "train_y", "test_x", "test_y")}

    root = download.get_dataset_directory("pfnet/chainer/cifar")
    return download.cache_or_load_file(os.path.join(root, name + ".npz"), create, load)


def _preprocess(
    x: numpy.ndarray,
    y: numpy.ndarray,
    withlabel: bool,
    ndim: int,
    scale: float,
    dtype: Any,
    caller: str,
) -> Any:
    images: numpy.ndarray
    if ndim == 1:
        images = x.reshape(-1, _PIXELS)
    elif ndim == 3:
        images = x.reshape(-1, 3, 32, 32)
    else:
        raise ValueError(f"{caller}: ndim must be 1 or 3, got {ndim!r}")
    images = images.astype(get_dtype(dtype))
    images *= scale / 255.0
    if withlabel:
        return TupleDataset(images, y.astype(numpy.int32))
    return images


def _get(name: str, withlabel: bool, ndim: int, scale: float, dtype: Any) -> Any:
    raw = _retrieve(name, numpy)
    caller = "get_" + name.replace("-", "")
    train = _preprocess(
        raw["train_x"], raw["train_y"], withlabel, ndim, scale, dtype, caller
    )
    test = _preprocess(
        raw["test_x"], raw["test_y"], withlabel, ndim, scale, dtype, caller
    )
    return train, test


def get_cifar10(
    withlabel: bool = True, ndim: int = 3, scale: float = 1.0, dtype: Any = None
) -> tuple[Any, Any]:
    """Return the CIFAR-10 training (50000) and test (10000) sets.

    Args:
        withlabel: Return ``(image, label)`` :class:`TupleDataset` s.
        ndim: 3 gives ``(3, 32, 32)`` images, 1 gives ``(3072,)``.
        scale: Pixel values are scaled to ``[0, scale]``.
        dtype: Image dtype (float32 by default). Labels are int32.

    Example:
        >>> train, test = get_cifar10()  # doctest: +SKIP
    """
    return _get("cifar-10", withlabel, ndim, scale, dtype)


def get_cifar100(
    withlabel: bool = True, ndim: int = 3, scale: float = 1.0, dtype: Any = None
) -> tuple[Any, Any]:
    """Return the CIFAR-100 training and test sets (fine labels, 0..99).

    Example:
        >>> train, test = get_cifar100()  # doctest: +SKIP
    """
    return _get("cifar-100", withlabel, ndim, scale, dtype)
