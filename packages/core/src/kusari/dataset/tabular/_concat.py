"""Row-wise stacking of tabular datasets (``dataset.concat(...)``).

Each underlying dataset is asked at most once per request, with the rows
that fall in it (``None`` when all rows are wanted, a slice when the
request was a slice), as Chainer 7 does: a dataset that reads from disk or
computes its columns in batches sees one call, not one per run of rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kusari.dataset.tabular.tabular_dataset import (
    Indices,
    KeyIndices,
    TabularDataset,
)


def _local_slice(
    start: int, stop: int, step: int, offset: int, length: int
) -> slice | None:
    """The part of ``range(start, stop, step)`` inside ``[offset, offset + length)``.

    Returned as a slice local to that dataset, or None when no row falls in
    it. Bounds that would need a negative number (which a slice reads as
    counting from the end) become None.
    """
    first, last = start - offset, stop - offset
    if step > 0:
        if first < 0:
            first %= step  # the first row of the progression at or after offset
        last = min(last, length)
    else:
        if first >= length:
            first = length + (first - length) % step  # last row at or before the end
        last = max(last, -1)
    if not len(range(first, last, step)):
        return None
    return slice(first, None if last < 0 else last, step)


def _stack_columns(parts: list[tuple[Any, ...]], n_cols: int) -> tuple[Any, ...]:
    """Columns of several datasets' answers, one after another, as lists."""
    if not parts:
        return tuple([] for _ in range(n_cols))
    if len(parts) == 1:
        return parts[0]  # arrays stay arrays when only one dataset answered
    return tuple([v for part in parts for v in part[c]] for c in range(n_cols))


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
        if indices is None:
            parts = [d.get_examples(None, key_indices) for d in self._datasets]
            return _stack_columns(parts, n_cols)
        if isinstance(indices, slice):
            return self._get_slice(indices, key_indices, n_cols)
        return self._get_rows(indices, key_indices, n_cols)

    def _get_slice(
        self, indices: slice, key_indices: KeyIndices, n_cols: int
    ) -> tuple[Any, ...]:
        start, stop, step = indices.indices(len(self))
        parts = []
        offset = 0
        for d in self._datasets:
            local = _local_slice(start, stop, step, offset, len(d))
            if local is not None:
                parts.append(d.get_examples(local, key_indices))
            offset += len(d)
        if step < 0:
            parts.reverse()  # a backward slice visits the last dataset first
        return _stack_columns(parts, n_cols)

    def _get_rows(
        self, indices: Sequence[int], key_indices: KeyIndices, n_cols: int
    ) -> tuple[Any, ...]:
        total = len(self)
        bounds = []
        offset = 0
        for d in self._datasets:
            bounds.append((offset, offset + len(d)))
            offset += len(d)
        local_rows: dict[int, list[int]] = {}  # dataset -> its rows, in order
        where = []  # (dataset, position in its rows) for each requested row
        for index in indices:
            i = int(index) + total if index < 0 else int(index)
            if not 0 <= i < total:
                raise IndexError(
                    f"TabularDataset.concat: row {index} is out of range for "
                    f"{total} rows"
                )
            which = next(k for k, (lo, hi) in enumerate(bounds) if lo <= i < hi)
            rows = local_rows.setdefault(which, [])
            where.append((which, len(rows)))
            rows.append(i - bounds[which][0])
        answers = {
            k: self._datasets[k].get_examples(rows, key_indices)
            for k, rows in local_rows.items()
        }
        if len(answers) <= 1:
            return _stack_columns(list(answers.values()), n_cols)
        return tuple([answers[k][c][p] for k, p in where] for c in range(n_cols))

    def convert(self, data: Any) -> Any:
        return self._datasets[0].convert(data)
