"""ConcatenatedDataset: sliceable datasets one after another."""

from __future__ import annotations

from typing import Any

from kusari_cv.chainer_experimental.datasets.sliceable.sliceable_dataset import (
    SliceableDataset,
)


class ConcatenatedDataset(SliceableDataset):
    """A sliceable version of :class:`kusari.datasets.ConcatenatedDataset`.

    Example:
        >>> from kusari_cv.chainer_experimental.datasets.sliceable import (
        ...     TupleDataset)
        >>> a = TupleDataset([0, 1], [0, 1])
        >>> b = TupleDataset([2, 3, 4], [4, 9, 16])
        >>> list(ConcatenatedDataset(a, b).slice[:, 1])
        [0, 1, 4, 9, 16]
    """

    def __init__(self, *datasets: SliceableDataset) -> None:
        if not datasets:
            raise ValueError("ConcatenatedDataset: at least one dataset is required")
        keys = datasets[0].keys
        for dataset in datasets[1:]:
            if dataset.keys != keys:
                raise ValueError(
                    "ConcatenatedDataset: all datasets must have the same keys, "
                    f"got {keys} and {dataset.keys}"
                )
        self._datasets = datasets
        self._keys = keys

    def __len__(self) -> int:
        return sum(len(dataset) for dataset in self._datasets)

    @property
    def keys(self) -> Any:
        return self._keys

    def get_example_by_keys(self, index: int, key_indices: tuple[int, ...]) -> tuple:
        if index >= 0:
            for dataset in self._datasets:
                if index < len(dataset):
                    return dataset.get_example_by_keys(index, key_indices)
                index -= len(dataset)
        raise IndexError(
            f"ConcatenatedDataset: index out of range for length {len(self)}"
        )
