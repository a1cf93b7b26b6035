"""TupleDataset and DictDataset: zip equally long datasets together."""

from __future__ import annotations

from typing import Any

import numpy


def _normalise_index(index: Any) -> Any:
    if isinstance(index, numpy.ndarray) and index.dtype == numpy.bool_:
        return numpy.flatnonzero(index)  # a mask selects positions
    return index


def _take(dataset: Any, index: Any) -> Any:
    if isinstance(index, (list, numpy.ndarray)) and not isinstance(
        dataset, numpy.ndarray
    ):
        # Lists and most datasets do not accept an index list; go one by one.
        return [dataset[int(i)] for i in index]
    return dataset[index]


def _is_batch_index(index: Any) -> bool:
    return isinstance(index, (slice, list, numpy.ndarray))


class TupleDataset:
    """Dataset whose ``i``-th example is ``(d0[i], d1[i], ...)``.

    Args:
        *datasets: Equally long datasets (arrays, lists, other datasets).

    Example:
        >>> import numpy as np
        >>> d = TupleDataset(np.arange(3), ['a', 'b', 'c'])
        >>> d[1]
        (np.int64(1), 'b')
        >>> d[:2]
        [(np.int64(0), 'a'), (np.int64(1), 'b')]
    """

    def __init__(self, *datasets: Any) -> None:
        if not datasets:
            raise ValueError("TupleDataset: no datasets are given")
        length = len(datasets[0])
        for i, d in enumerate(datasets):
            if len(d) != length:
                raise ValueError(
                    f"TupleDataset: dataset {i} has length {len(d)}, expected "
                    f"{length} like dataset 0"
                )
        self._datasets = datasets
        self._length = length

    def __repr__(self) -> str:
        return f"TupleDataset(len={self._length}, n_columns={len(self._datasets)})"

    def __getitem__(self, index: Any) -> Any:
        index = _normalise_index(index)
        columns = [_take(d, index) for d in self._datasets]
        if _is_batch_index(index):
            return [tuple(col[i] for col in columns) for i in range(len(columns[0]))]
        return tuple(columns)

    def __len__(self) -> int:
        return self._length


class DictDataset:
    """Dataset whose ``i``-th example is ``{key: d[i] for key, d in ...}``.

    Args:
        **datasets: Equally long datasets, one per key.

    Example:
        >>> import numpy as np
        >>> d = DictDataset(x=np.arange(3), y=[5, 6, 7])
        >>> d[2]
        {'x': np.int64(2), 'y': 7}
    """

    def __init__(self, **datasets: Any) -> None:
        if not datasets:
            raise ValueError("DictDataset: no datasets are given")
        length = None
        for key, d in datasets.items():
            if length is None:
                length = len(d)
            elif len(d) != length:
                raise ValueError(
                    f"DictDataset: dataset {key!r} has length {len(d)}, expected "
                    f"{length} like the others"
                )
        self._datasets = datasets
        self._length = length or 0

    def __repr__(self) -> str:
        return f"DictDataset(len={self._length}, keys={list(self._datasets)})"

    def __getitem__(self, index: Any) -> Any:
        index = _normalise_index(index)
        columns = {k: _take(d, index) for k, d in self._datasets.items()}
        if _is_batch_index(index):
            n = len(next(iter(columns.values())))
            return [{k: col[i] for k, col in columns.items()} for i in range(n)]
        return columns

    def __len__(self) -> int:
        return self._length
