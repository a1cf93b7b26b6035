"""SVHN (Street View House Numbers, 32x32 colour digits).

The ``.mat`` files are read with SciPy (an optional dependency). The base URL
is :data:`SVHN_BASE_URL`, overridable with ``$KUSARI_SVHN_BASE_URL``.
"""

from __future__ import annotations

import os
from typing import Any

import numpy

from kusari.dataset import download
from kusari.datasets._mnist_common import get_dtype
from kusari.datasets.tuple_dataset import TupleDataset

#: Where ``train_32x32.mat`` and friends live.
SVHN_BASE_URL = "http://ufldl.stanford.edu/housenumbers/"


def _retrieve(split: str, np_module: Any) -> dict[str, numpy.ndarray]:
    def create(path: str) -> dict[str, numpy.ndarray]:
        try:
            from scipy import io as sio
        except ImportError as e:
            raise ImportError(
                "get_svhn needs SciPy to read .mat files; install it with "
                "`pip install scipy`"
            ) from e
        base = download.env_base_url("KUSARI_SVHN_BASE_URL", SVHN_BASE_URL)
        raw = download.cached_download(f"{base.rstrip('/')}/{split}_32x32.mat")
        mat = sio.loadmat(raw)
        # Chainer's cache layout, so that one cache serves both libraries:
        # the .mat arrays as they are, (32, 32, 3, N) images and 1..10 labels.
        x = mat["X"].astype(numpy.uint8)
        y = mat["y"].astype(numpy.uint8)
        with open(path, "wb") as f:
            numpy.savez_compressed(f, x=x, y=y, allow_pickle=False)
        return {"x": x, "y": y}

    def load(path: str) -> dict[str, numpy.ndarray]:
        # np_module is this module's numpy, looked up by get_svhn, so that a
        # test patching kusari.datasets.svhn.numpy sees the cache being read.
        with np_module.load(path, allow_pickle=False) as f:
            return {"x": f["x"], "y": f["y"]}

    root = download.get_dataset_directory("pfnet/chainer/svhn")
    return download.cache_or_load_file(os.path.join(root, split + ".npz"), create, load)


def _preprocess(
    raw: dict[str, numpy.ndarray],
    withlabel: bool,
    scale: float,
    dtype: Any,
    label_dtype: Any,
) -> Any:
    images = raw["x"]
    if getattr(images, "shape", ())[:3] == (32, 32, 3):
        images = images.transpose(3, 2, 0, 1)  # (32, 32, 3, N) -> (N, 3, 32, 32)
    # else: an older kusari cache, already (N, 3, 32, 32) with labels 0..9.
    # order="C": one copy that is also contiguous (the transpose is a view).
    images = images.astype(get_dtype(dtype), order="C")
    images *= scale / 255.0
    labels = raw["y"].astype(label_dtype).flatten()
    labels[labels == 10] = 0  # SVHN labels the digit 0 as 10
    if withlabel:
        return TupleDataset(images, labels)
    return images


def get_svhn(
    withlabel: bool = True,
    scale: float = 1.0,
    dtype: Any = None,
    label_dtype: Any = numpy.int32,
    add_extra: bool = False,
) -> tuple[Any, ...]:
    """Return the SVHN training and test sets (and the extra set if asked).

    Images are ``(3, 32, 32)`` in ``[0, scale]``; labels are 0..9.

    Example:
        >>> train, test = get_svhn()  # doctest: +SKIP
    """
    splits = ["train", "test"] + (["extra"] if add_extra else [])
    return tuple(
        _preprocess(_retrieve(s, numpy), withlabel, scale, dtype, label_dtype)
        for s in splits
    )
