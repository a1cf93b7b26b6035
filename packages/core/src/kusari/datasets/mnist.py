"""MNIST, Fashion-MNIST and Kuzushiji-MNIST (handwritten 28x28 images).

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
from kusari.utils.atomic import atomic_write

_FILES = {
    "train_x": "train-images-idx3-ubyte.gz",
    "train_y": "train-labels-idx1-ubyte.gz",
    "test_x": "t10k-images-idx3-ubyte.gz",
    "test_y": "t10k-labels-idx1-ubyte.gz",
}

#: Mirrors tried in order for MNIST (``$KUSARI_MNIST_BASE_URL`` overrides).
MNIST_BASE_URLS = (
    "https://storage.googleapis.com/cvdf-datasets/mnist/",
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
)
#: ``$KUSARI_FASHION_MNIST_BASE_URL`` overrides.
FASHION_MNIST_BASE_URLS = (
    "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
)
#: ``$KUSARI_KUZUSHIJI_MNIST_BASE_URL`` overrides.
KUZUSHIJI_MNIST_BASE_URLS = ("http://codh.rois.ac.jp/kmnist/dataset/kmnist/",)

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


def _load(
    source: common.RawSource,
    withlabel: bool,
    ndim: int,
    scale: float,
    dtype: Any,
    label_dtype: Any,
    rgb_format: bool,
    caller: str,
) -> tuple[Any, Any]:
    train = common.retrieve(source, "train.npz", _FILES["train_x"], _FILES["train_y"])
    test = common.retrieve(source, "test.npz", _FILES["test_x"], _FILES["test_y"])
    args = (withlabel, ndim, scale, dtype, label_dtype, rgb_format, caller)
    return common.preprocess(train, *args), common.preprocess(test, *args)


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
    return _load(
        _mnist_source(),
        withlabel,
        ndim,
        scale,
        dtype,
        label_dtype,
        rgb_format,
        "get_mnist",
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


def get_fashion_mnist(
    withlabel: bool = True,
    ndim: int = 1,
    scale: float = 1.0,
    dtype: Any = None,
    label_dtype: Any = numpy.int32,
    rgb_format: bool = False,
) -> tuple[Any, Any]:
    """Return the Fashion-MNIST training and test sets (same API as MNIST).

    Example:
        >>> train, test = get_fashion_mnist()  # doctest: +SKIP
    """
    source = common.RawSource(
        "pfnet/chainer/fashion-mnist",
        "KUSARI_FASHION_MNIST_BASE_URL",
        FASHION_MNIST_BASE_URLS,
    )
    return _load(
        source,
        withlabel,
        ndim,
        scale,
        dtype,
        label_dtype,
        rgb_format,
        "get_fashion_mnist",
    )


def get_fashion_mnist_labels() -> list[str]:
    """Return the names of the 10 Fashion-MNIST classes, by label.

    Example:
        >>> get_fashion_mnist_labels()[9]
        'Ankle boot'
    """
    return [
        "T-shirt/top",
        "Trouser",
        "Pullover",
        "Dress",
        "Coat",
        "Sandal",
        "Shirt",
        "Sneaker",
        "Bag",
        "Ankle boot",
    ]


def get_kuzushiji_mnist(
    withlabel: bool = True,
    ndim: int = 1,
    scale: float = 1.0,
    dtype: Any = None,
    label_dtype: Any = numpy.int32,
    rgb_format: bool = False,
) -> tuple[Any, Any]:
    """Return the Kuzushiji-MNIST training and test sets (same API as MNIST).

    Example:
        >>> train, test = get_kuzushiji_mnist()  # doctest: +SKIP
    """
    source = common.RawSource(
        "pfnet/chainer/kuzushiji_mnist",
        "KUSARI_KUZUSHIJI_MNIST_BASE_URL",
        KUZUSHIJI_MNIST_BASE_URLS,
    )
    return _load(
        source,
        withlabel,
        ndim,
        scale,
        dtype,
        label_dtype,
        rgb_format,
        "get_kuzushiji_mnist",
    )


def get_kuzushiji_mnist_labels() -> list[str]:
    """Return the romanised names of the 10 Kuzushiji-MNIST classes.

    Example:
        >>> get_kuzushiji_mnist_labels()[:3]
        ['o', 'ki', 'su']
    """
    return ["o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"]
