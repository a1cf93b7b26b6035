"""SubDataset and the helpers that split a dataset into parts."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy

from kusari.dataset.dataset_mixin import DatasetMixin


class SubDataset(DatasetMixin):
    """A contiguous range of a dataset, optionally through a permutation.

    Example ``i`` is ``dataset[order[start + i]]`` (``dataset[start + i]``
    without an order).

    Args:
        dataset: The base dataset.
        start: First position (inclusive).
        finish: Last position (exclusive).
        order: A permutation of ``range(len(dataset))``, or ``None``.

    Example:
        >>> d = SubDataset([10, 11, 12, 13], 1, 3)
        >>> len(d), d[0], d[-1]
        (2, 11, 12)
    """

    def __init__(
        self,
        dataset: Any,
        start: int,
        finish: int,
        order: Sequence[int] | numpy.ndarray | None = None,
    ) -> None:
        n = len(dataset)
        if not 0 <= start <= finish <= n:
            raise ValueError(
                f"SubDataset: expected 0 <= start <= finish <= len(dataset) = {n}, "
                f"got start={start}, finish={finish}"
            )
        if order is not None and len(order) != n:
            raise ValueError(
                f"SubDataset: order has length {len(order)}, expected the dataset "
                f"length {n}"
            )
        self._dataset = dataset
        self._start = start
        self._finish = finish
        self._size = finish - start
        self._order = order

    def __repr__(self) -> str:
        return f"SubDataset(start={self._start}, finish={self._finish})"

    def __len__(self) -> int:
        return self._size

    def get_example(self, i: int) -> Any:
        if not -self._size <= i < self._size:
            raise IndexError(
                f"SubDataset: index {i} is out of range for length {self._size}"
            )
        index = self._start + i % self._size
        if self._order is not None:
            index = int(self._order[index])
        return self._dataset[index]


def split_dataset(
    dataset: Any, split_at: int, order: Sequence[int] | numpy.ndarray | None = None
) -> tuple[SubDataset, SubDataset]:
    """Split a dataset into ``[0, split_at)`` and ``[split_at, len)``.

    Example:
        >>> a, b = split_dataset(list(range(5)), 2)
        >>> list(a), list(b)
        ([0, 1], [2, 3, 4])
    """
    n = len(dataset)
    if not isinstance(split_at, numbers.Integral) or isinstance(split_at, bool):
        raise TypeError(
            f"split_dataset: split_at must be an int, got {type(split_at).__name__}"
        )
    if split_at < 0:
        raise ValueError(f"split_dataset: split_at must be >= 0, got {split_at}")
    if split_at > n:
        raise ValueError(
            f"split_dataset: split_at ({split_at}) exceeds the dataset size ({n})"
        )
    split_at = int(split_at)
    return SubDataset(dataset, 0, split_at, order), SubDataset(
        dataset, split_at, n, order
    )


def split_dataset_random(
    dataset: Any, first_size: int, seed: int | None = None
) -> tuple[SubDataset, SubDataset]:
    """Split a dataset in two at random (``first_size`` examples first).

    Example:
        >>> a, b = split_dataset_random(list(range(5)), 2, seed=0)
        >>> sorted(list(a) + list(b))
        [0, 1, 2, 3, 4]
    """
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return split_dataset(dataset, first_size, order)


def split_dataset_n(
    dataset: Any, n: int, order: Sequence[int] | numpy.ndarray | None = None
) -> list[SubDataset]:
    """Split a dataset into ``n`` parts of ``len(dataset) // n`` examples.

    As in Chainer, the ``len(dataset) % n`` examples at the end are dropped.

    Example:
        >>> [list(d) for d in split_dataset_n(list(range(7)), 3)]
        [[0, 1], [2, 3], [4, 5]]
    """
    if not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"split_dataset_n: n must be a positive int, got {n!r}")
    size = len(dataset) // n
    return [SubDataset(dataset, size * i, size * (i + 1), order) for i in range(n)]


def split_dataset_n_random(
    dataset: Any, n: int, seed: int | None = None
) -> list[SubDataset]:
    """Split a dataset into ``n`` random parts of equal size.

    Example:
        >>> parts = split_dataset_n_random(list(range(6)), 2, seed=0)
        >>> [len(p) for p in parts]
        [3, 3]
    """
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return split_dataset_n(dataset, n, order)


def get_cross_validation_datasets(
    dataset: Any,
    n_folds: int | None = None,
    order: Sequence[int] | numpy.ndarray | None = None,
    **kwargs: Any,
) -> list[tuple[SubDataset, SubDataset]]:
    """Return ``n_folds`` (train, test) pairs for k-fold cross validation.

    The test parts are disjoint and together cover the dataset.

    Example:
        >>> folds = get_cross_validation_datasets(list(range(6)), 3)
        >>> [sorted(test) for _, test in folds]
        [[4, 5], [2, 3], [0, 1]]
    """
    n_folds = _n_folds("get_cross_validation_datasets", n_folds, kwargs)
    n = len(dataset)
    current = numpy.arange(n) if order is None else numpy.asarray(order)
    borders = [n * i // n_folds for i in range(n_folds + 1)]
    test_sizes = [borders[i + 1] - borders[i] for i in range(n_folds)]
    splits = []
    for test_size in reversed(test_sizes):
        splits.append(split_dataset(dataset, n - test_size, current))
        # Rotate so that the next fold's test part is at the end.
        current = numpy.concatenate(
            [current[n - test_size :], current[: n - test_size]]
        )
    return splits


def get_cross_validation_datasets_random(
    dataset: Any, n_folds: int | None = None, seed: int | None = None, **kwargs: Any
) -> list[tuple[SubDataset, SubDataset]]:
    """Like :func:`get_cross_validation_datasets` on a random permutation.

    Example:
        >>> folds = get_cross_validation_datasets_random(list(range(6)), 2, seed=1)
        >>> sorted(list(folds[0][1]) + list(folds[1][1]))
        [0, 1, 2, 3, 4, 5]
    """
    n_folds = _n_folds("get_cross_validation_datasets_random", n_folds, kwargs)
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return get_cross_validation_datasets(dataset, n_folds, order)


def _n_folds(caller: str, n_folds: int | None, kwargs: dict[str, Any]) -> int:
    # Chainer accepted the old spelling ``n_fold``.
    if "n_fold" in kwargs:
        if n_folds is not None:
            raise TypeError(f"{caller}: give n_folds or n_fold, not both")
        n_folds = kwargs.pop("n_fold")
    if kwargs:
        raise TypeError(f"{caller}: unexpected arguments {sorted(kwargs)}")
    if not isinstance(n_folds, numbers.Integral) or n_folds < 1:
        raise ValueError(f"{caller}: n_folds must be a positive int, got {n_folds!r}")
    return int(n_folds)
