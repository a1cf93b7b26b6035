"""Fashion-MNIST (28x28 grey images of clothes, 10 classes).

The raw files are looked up in the dataset directory first, then downloaded
from :data:`FASHION_MNIST_BASE_URLS` (``$KUSARI_FASHION_MNIST_BASE_URL``
overrides). The cached npz files have Chainer's layout.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari.datasets import _mnist_common as common

#: Mirrors tried in order (``$KUSARI_FASHION_MNIST_BASE_URL`` overrides).
FASHION_MNIST_BASE_URLS = (
    "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
)


def get_fashion_mnist(
    withlabel: bool = True,
    ndim: int = 1,
    scale: float = 1.0,
    dtype: Any = None,
    label_dtype: Any = numpy.int32,
    rgb_format: bool = False,
) -> tuple[Any, Any]:
    """Return the Fashion-MNIST training and test sets (same API as MNIST).

    Args:
        withlabel: Return ``(image, label)`` :class:`TupleDataset` s.
        ndim: 1 gives ``(784,)`` images, 2 ``(28, 28)``, 3 ``(1, 28, 28)``.
        scale: Pixel values are scaled to ``[0, scale]``.
        dtype: Image dtype (the configured default when ``None``).
        label_dtype: Label dtype.
        rgb_format: With ``ndim=3``, repeat the channel to ``(3, 28, 28)``.

    Example:
        >>> train, test = get_fashion_mnist()  # doctest: +SKIP
    """
    source = common.RawSource(
        "pfnet/chainer/fashion-mnist",
        "KUSARI_FASHION_MNIST_BASE_URL",
        FASHION_MNIST_BASE_URLS,
    )
    return common.load_mnist_like(
        source,
        withlabel,
        ndim,
        scale,
        dtype,
        label_dtype,
        rgb_format,
        "get_fashion_mnist",
        numpy,  # this module's, looked up now (see common.load_xy)
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
