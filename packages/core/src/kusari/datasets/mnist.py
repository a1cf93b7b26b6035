"""MNIST (handwritten digits, 28x28 images).

Fashion-MNIST and Kuzushiji-MNIST live in their own modules, as in Chainer
(:mod:`kusari.datasets.fashion_mnist`, :mod:`kusari.datasets.kuzushiji_mnist`);
their functions are also importable from here.

Raw files are looked up in the dataset directory first (see
:func:`install_mnist`), then downloaded from the mirrors in the module
constants, overridable with environment variables such as
``KUSARI_MNIST_BASE_URL`` (handy for a local mirror or tests).
"""

from __future__ import annotations

import os
import shutil
from typing import Any

import numpy

from kusari.dataset import download
from kusari.datasets import _mnist_common as common
from kusari.datasets.fashion_mnist import (  # noqa: F401  (kept importable here)
    FASHION_MNIST_BASE_URLS,
    get_fashion_mnist,
    get_fashion_mnist_labels,
)
from kusari.datasets.kuzushiji_mnist import (  # noqa: F401
    KUZUSHIJI_MNIST_BASE_URLS,
    get_kuzushiji_mnist,
    get_kuzushiji_mnist_labels,
)
from kusari.utils.atomic import atomic_write

_FILES = common.FILES

#: Mirrors tried in order for MNIST (``$KUSARI_MNIST_BASE_URL`` overrides).
MNIST_BASE_URLS = (
    "https://storage.googleapis.com/cvdf-datasets/mnist/",
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
)
#: SHA-256 of the decompressed IDX payloads of the original MNIST files.
MNIST_PAYLOAD_SHA256 = {
    "train-images-idx3-ubyte.gz": (
        "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db"
    ),
    "train-labels-idx1-ubyte.gz": (
        "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5"
    ),
    "t10k-images-idx3-ubyte.gz": (
        "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7"
    ),
    "t10k-labels-idx1-ubyte.gz": (
        "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2"
    ),
}

_MNIST_DIR = "pfnet/chainer/mnist"


def _mnist_source() -> common.RawSource:
    return common.RawSource(
        _MNIST_DIR, "KUSARI_MNIST_BASE_URL", MNIST_BASE_URLS, MNIST_PAYLOAD_SHA256
    )


def get_mnist(
    withlabel: bool = True,
    ndim: int = 1,
    scale: float = 1.0,
    dtype: Any = None,
    label_dtype: Any = numpy.int32,
    rgb_format: bool = False,
) -> tuple[Any, Any]:
    """Return the MNIST training (60000) and test (10000) sets.

    Args:
        withlabel: Return :class:`TupleDataset` s of ``(image, label)``;
            otherwise plain image arrays.
        ndim: 1 gives ``(784,)`` images, 2 ``(28, 28)``, 3 ``(1, 28, 28)``.
        scale: Pixel values are scaled to ``[0, scale]``.
        dtype: Image dtype (the configured default, float32, when ``None``).
        label_dtype: Label dtype.
        rgb_format: With ``ndim=3``, repeat the channel to ``(3, 28, 28)``.

    Returns:
        ``(train, test)``.

    Example:
        >>> train, test = get_mnist()  # doctest: +SKIP
        >>> train[0][0].shape, train[0][0].dtype  # doctest: +SKIP
        ((784,), dtype('float32'))
    """
    return common.load_mnist_like(
        _mnist_source(),
        withlabel,
        ndim,
        scale,
        dtype,
        label_dtype,
        rgb_format,
        "get_mnist",
        numpy,  # this module's, looked up now (see common.load_xy)
    )


def install_mnist(src_dir: str | os.PathLike[str]) -> str:
    """Copy the four raw MNIST ``.gz`` files into the dataset cache.

    Afterwards :func:`get_mnist` builds its arrays from them without any
    network access. The files are verified against the known checksums of
    their decompressed payload first.

    Args:
        src_dir: Directory holding ``train-images-idx3-ubyte.gz`` and the
            other three standard files.

    Returns:
        The cache directory the files were copied to.

    Example:
        >>> install_mnist('/path/to/mnist')  # doctest: +SKIP
    """
    src_dir = os.fspath(src_dir)
    dest = download.get_dataset_directory(_MNIST_DIR)
    for name in _FILES.values():
        src = os.path.join(src_dir, name)
        if not os.path.exists(src):
            raise FileNotFoundError(f"install_mnist: {src!r} is missing")
        if common.gz_payload_sha256(src) != MNIST_PAYLOAD_SHA256[name]:
            raise ValueError(
                f"install_mnist: {src!r} is not the original MNIST {name} "
                "(checksum of the decompressed data differs)"
            )
    for name in _FILES.values():
        target = os.path.join(dest, name)
        if not os.path.exists(target):
            # Copied under a temporary name, so a concurrent get_mnist never
            # sees a partial file.
            with (
                open(os.path.join(src_dir, name), "rb") as fin,
                atomic_write(target) as dst,
            ):
                shutil.copyfileobj(fin, dst)
    return dest
