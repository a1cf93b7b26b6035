"""DaliIterator placeholder: NVIDIA DALI is not supported by kusari."""

from __future__ import annotations

from typing import Any

from kusari.dataset.iterator import Iterator


class DaliIterator(Iterator):
    """Not supported: always raises :class:`ImportError`.

    Chainer's DaliIterator wrapped an NVIDIA DALI pipeline. kusari does not
    integrate DALI; use :class:`~kusari.iterators.MultiprocessIterator` with
    a transforming dataset instead.

    Example:
        >>> DaliIterator(None, 32)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ImportError: DaliIterator: NVIDIA DALI is not supported by kusari; ...
    """

    def __init__(self, pipeline: Any = None, *args: Any, **kwargs: Any) -> None:
        raise ImportError(
            "DaliIterator: NVIDIA DALI is not supported by kusari; use "
            "kusari.iterators.MultiprocessIterator (or MultithreadIterator) with "
            "a TransformDataset for data augmentation instead"
        )
