"""ConcatenatedDataset: several datasets one after another."""

from __future__ import annotations

from typing import Any

from kusari.dataset.dataset_mixin import DatasetMixin


class ConcatenatedDataset(DatasetMixin):
    """Dataset made of the examples of each dataset in turn.

    Args:
        *datasets: The datasets to concatenate.

    Example:
        >>> d = ConcatenatedDataset([1, 2], [3])
        >>> len(d), d[2], d[-1]
        (3, 3, 3)
    """

    def __init__(self, *datasets: Any) -> None:
        self._datasets = datasets

    def __repr__(self) -> str:
        return f"ConcatenatedDataset(len={len(self)}, n_datasets={len(self._datasets)})"

    def __len__(self) -> int:
        return sum(len(d) for d in self._datasets)

    def get_example(self, i: int) -> Any:
        n = len(self)
        if not -n <= i < n:
            raise IndexError(
                f"ConcatenatedDataset: index {i} is out of range for length {n}"
            )
        i %= n
        for d in self._datasets:
            if i < len(d):
                return d[i]
            i -= len(d)
        raise AssertionError("unreachable")
