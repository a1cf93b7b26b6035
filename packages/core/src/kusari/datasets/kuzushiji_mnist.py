"""Kuzushiji-MNIST (28x28 grey images of cursive Japanese, 10 classes).

The raw files are looked up in the dataset directory first, then downloaded
from :data:`KUZUSHIJI_MNIST_BASE_URLS` (``$KUSARI_KUZUSHIJI_MNIST_BASE_URL``
overrides). The cached npz files have Chainer's layout.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari.datasets import _mnist_common as common

#: Mirrors tried in order (``$KUSARI_KUZUSHIJI_MNIST_BASE_URL`` overrides).
KUZUSHIJI_MNIST_BASE_URLS = ("http://codh.rois.ac.jp/kmnist/dataset/kmnist/",)


def get_kuzushiji_mnist(
    withlabel: bool = True,
    ndim: int = 1,
    scale: float = 1.0,
    dtype: Any = None,
    label_dtype: Any = numpy.int32,
    rgb_format: bool = False,
) -> tuple[Any, Any]:
    """Return the Kuzushiji-MNIST training and test sets (same API as MNIST).

    Args:
        withlabel: Return ``(image, label)`` :class:`TupleDataset` s.
        ndim: 1 gives ``(784,)`` images, 2 ``(28, 28)``, 3 ``(1, 28, 28)``.
        scale: Pixel values are scaled to ``[0, scale]``.
        dtype: Image dtype (the configured default when ``None``).
        label_dtype: Label dtype.
        rgb_format: With ``ndim=3``, repeat the channel to ``(3, 28, 28)``.

    Example:
        >>> train, test = get_kuzushiji_mnist()  # doctest: +SKIP
    """
    source = common.RawSource(
        "pfnet/chainer/kuzushiji_mnist",
        "KUSARI_KUZUSHIJI_MNIST_BASE_URL",
        KUZUSHIJI_MNIST_BASE_URLS,
    )
    return common.load_mnist_like(
        source,
        withlabel,
        ndim,
        scale,
        dtype,
        label_dtype,
        rgb_format,
        "get_kuzushiji_mnist",
        numpy,  # this module's, looked up now (see common.load_xy)
    )


def get_kuzushiji_mnist_labels() -> list[str]:
    """Return the romanised names of the 10 Kuzushiji-MNIST classes.

    Example:
        >>> get_kuzushiji_mnist_labels()[:3]
        ['o', 'ki', 'su']
    """
    return ["o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"]
