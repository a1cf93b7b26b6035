"""Views combining tabular datasets: mode changes, concat, join, converters."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from kusari.dataset.tabular._slice import as_row_range, range_to_slice
from kusari.dataset.tabular.tabular_dataset import (
    Indices,
    KeyIndices,
    TabularDataset,
)


class AsMode(TabularDataset):
    """The same data with examples as tuples or dicts."""

    def __init__(self, dataset: TabularDataset, mode: type) -> None:
        self._dataset = dataset
        self._mode = mode

    def __len__(self) -> int:
        return len(self._dataset)

    @property
    def keys(self) -> tuple[str, ...]:
        return self._dataset.keys

    @property
    def mode(self) -> type | None:
        return self._mode

    def get_examples(
        self, indices: Indices, key_indices: KeyIndices
    ) -> tuple[Any, ...]:
        return self._dataset.get_examples(indices, key_indices)

    def convert(self, data: Any) -> Any:
        return self._dataset.convert(data)


def _join_chunks(chunks: list[Any]) -> Any:
    if len(chunks) == 1:
        return chunks[0]
    if all(isinstance(c, numpy.ndarray) for c in chunks):
        return numpy.concatenate(chunks)
    out: list[Any] = []
    for c in chunks:
        out.extend(c)
    return out


class Concat(TabularDataset):
    """Datasets with identical keys stacked row-wise."""

    def __init__(self, *datasets: TabularDataset) -> None:
        for d in datasets[1:]:
            if d.keys != datasets[0].keys:
                raise ValueError(
                    "TabularDataset.concat: all datasets must have the same keys, "
                    f"got {datasets[0].keys} and {d.keys}"
                )
        self._datasets = datasets

    def __len__(self) -> int:
        return sum(len(d) for d in self._datasets)

    @property
    def keys(self) -> tuple[str, ...]:
        return self._datasets[0].keys

    @property
    def mode(self) -> type | None:
        return self._datasets[0].mode

    def get_examples(
        self, indices: Indices, key_indices: KeyIndices
    ) -> tuple[Any, ...]:
        n_cols = len(self.keys) if key_indices is None else len(key_indices)
        rows = as_row_range(indices, len(self))
        if rows is None:
            rows = range(len(self))
        offsets = []
        start = 0
        for d in self._datasets:
            offsets.append((start, start + len(d)))
            start += len(d)
        # Contiguous runs of rows that fall in one dataset are fetched in one
        # call, as a slice when the request was a slice.
        columns: list[list[Any]] = [[] for _ in range(n_cols)]
        pos = 0
        while pos < len(rows):
            r = rows[pos]
            which = next(i for i, (lo, hi) in enumerate(offsets) if lo <= r < hi)
            lo, hi = offsets[which]
            end = pos
            while end < len(rows) and lo <= rows[end] < hi:
                end += 1
            run = rows[pos:end]
            local: Indices
            if isinstance(run, range):
                local = range_to_slice(range(run.start - lo, run.stop - lo, run.step))
            else:
                local = [i - lo for i in run]
            chunk = self._datasets[which].get_examples(local, key_indices)
            for c in range(n_cols):
                columns[c].append(chunk[c])
            pos = end
        if not len(rows):
            return self._datasets[0].get_examples([], key_indices)
        return tuple(_join_chunks(col) for col in columns)

    def convert(self, data: Any) -> Any:
        return self._datasets[0].convert(data)


class Join(TabularDataset):
    """Datasets of the same length placed side by side (column-wise)."""

    def __init__(self, *datasets: TabularDataset) -> None:
        n = len(datasets[0])
        keys: list[str] = []
        for d in datasets:
            if len(d) != n:
                raise ValueError(
                    "TabularDataset.join: all datasets must have the same length, "
                    f"got {n} and {len(d)}"
                )
            for k in d.keys:
                if k in keys:
                    raise ValueError(f"TabularDataset.join: duplicated key {k!r}")
                keys.append(k)
        self._datasets = datasets
        self._keys = tuple(keys)

    def __len__(self) -> int:
        return len(self._datasets[0])

    @property
    def keys(self) -> tuple[str, ...]:
        return self._keys

    @property
    def mode(self) -> type | None:
        for d in self._datasets:
            if d.mode is not None:
                return d.mode
        return tuple

    def get_examples(
        self, indices: Indices, key_indices: KeyIndices
    ) -> tuple[Any, ...]:
        if key_indices is None:
            key_indices = range(len(self._keys))
        owner: list[tuple[int, int]] = []
        for i, d in enumerate(self._datasets):
            owner.extend((i, j) for j in range(len(d.keys)))
        wanted: dict[int, list[int]] = {}
        for k in key_indices:
            i, j = owner[k]
            if j not in wanted.setdefault(i, []):
                wanted[i].append(j)
        fetched = {
            i: dict(
                zip(js, self._datasets[i].get_examples(indices, tuple(js)), strict=True)
            )
            for i, js in wanted.items()
        }
        return tuple(fetched[owner[k][0]][owner[k][1]] for k in key_indices)

    def convert(self, data: Any) -> Any:
        return self._datasets[0].convert(data)


class WithConverter(TabularDataset):
    """The same data with a custom :meth:`convert`."""

    def __init__(self, dataset: TabularDataset, converter: Callable[..., Any]) -> None:
        if not callable(converter):
            raise TypeError(
                "TabularDataset.with_converter: expected a callable, got "
                f"{type(converter).__name__}"
            )
        self._dataset = dataset
        self._converter = converter

    def __len__(self) -> int:
        return len(self._dataset)

    @property
    def keys(self) -> tuple[str, ...]:
        return self._dataset.keys

    @property
    def mode(self) -> type | None:
        return self._dataset.mode

    def get_examples(
        self, indices: Indices, key_indices: KeyIndices
    ) -> tuple[Any, ...]:
        return self._dataset.get_examples(indices, key_indices)

    def convert(self, data: Any) -> Any:
        if isinstance(data, tuple):
            return self._converter(*data)
        if isinstance(data, dict):
            return self._converter(**data)
        return self._converter(data)
