"""Row/column views of a TabularDataset (``dataset.slice[rows, keys]``)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy

from kusari.dataset.tabular.tabular_dataset import (
    Indices,
    KeyIndices,
    TabularDataset,
)


def range_to_slice(r: range) -> slice:
    """Turn a normalised range into an equivalent slice.

    A negative stop of a range means "before index 0", which a slice cannot
    say with a negative number (that would count from the end), hence None.
    """
    stop = None if r.stop < 0 else r.stop
    return slice(r.start, stop, r.step)


def as_row_range(indices: Indices, length: int) -> range | list[int] | None:
    """Normalise requested rows to a range (for slices) or a list of ints."""
    if indices is None:
        return None
    if isinstance(indices, slice):
        return range(*indices.indices(length))
    return list(indices)


def _normalise_rows(indices: Any, length: int) -> slice | list[int]:
    if isinstance(indices, slice):
        return indices
    if isinstance(indices, numpy.ndarray):
        indices = indices.tolist()
    if not isinstance(indices, (list, tuple, range)):
        raise TypeError(
            "TabularDataset.slice: rows must be a slice or a list/array of ints "
            f"or bools, got {type(indices).__name__}"
        )
    indices = list(indices)
    if indices and all(isinstance(b, (bool, numpy.bool_)) for b in indices):
        if len(indices) != length:
            raise ValueError(
                f"TabularDataset.slice: got {len(indices)} booleans for a dataset "
                f"of length {length}"
            )
        return [i for i, b in enumerate(indices) if b]
    # Not a mask: as in Chainer, a bool among integers is the row 0 or 1.
    rows = []
    for index in indices:
        if not isinstance(index, (numbers.Integral, numpy.bool_)):
            raise ValueError(
                f"TabularDataset.slice: row index {index!r} is not an integer"
            )
        i = int(index) + length if index < 0 else int(index)
        if not 0 <= i < length:
            raise IndexError(
                f"TabularDataset.slice: row index {index} is out of bounds for a "
                f"dataset of length {length}"
            )
        rows.append(i)
    return rows


def key_positions(keys: Any, names: tuple[str, ...]) -> tuple[int, ...]:
    """Map key names or positions to positions in ``names``."""
    positions = []
    for key in keys:
        if isinstance(key, numbers.Integral) and not isinstance(key, bool):
            k = int(key) + len(names) if key < 0 else int(key)
            if not 0 <= k < len(names):
                raise IndexError(
                    f"TabularDataset.slice: key index {key} is out of bounds for "
                    f"keys {names}"
                )
        elif isinstance(key, str):
            if key not in names:
                raise KeyError(f"TabularDataset.slice: no key {key!r} in {names}")
            k = names.index(key)
        else:
            raise TypeError(
                f"TabularDataset.slice: a key must be a str or an int, got "
                f"{type(key).__name__}"
            )
        positions.append(k)
    return tuple(positions)


def merge_rows(
    outer: Indices, inner: Indices, outer_len: int, inner_len: int
) -> Indices:
    """Compose row selections: ``inner`` indexes the rows ``outer`` selected."""
    if inner is None:
        return outer
    if outer is None:
        return inner
    a = as_row_range(outer, outer_len)
    assert a is not None
    if isinstance(inner, slice):
        picked = a[inner]
        return range_to_slice(picked) if isinstance(picked, range) else picked
    return [a[i] for i in inner]


class Slice(TabularDataset):
    """A view of some rows and columns of another tabular dataset."""

    def __init__(self, dataset: TabularDataset, indices: Any, keys: Any) -> None:
        self._dataset = dataset
        self._rows = _normalise_rows(indices, len(dataset))
        self._mode: type | None
        if keys is None:
            self._keys: tuple[int, ...] | None = None
            self._mode = dataset.mode
        elif isinstance(keys, (tuple, list)):
            # A tuple of keys gives tuples even from a single-column dataset.
            self._keys = key_positions(keys, dataset.keys)
            self._mode = dataset.mode or tuple
        else:  # a single key: examples are bare values
            self._keys = key_positions((keys,), dataset.keys)
            self._mode = None

    def __len__(self) -> int:
        if isinstance(self._rows, slice):
            return len(range(*self._rows.indices(len(self._dataset))))
        return len(self._rows)

    @property
    def keys(self) -> tuple[str, ...]:
        if self._keys is None:
            return self._dataset.keys
        return tuple(self._dataset.keys[k] for k in self._keys)

    @property
    def mode(self) -> type | None:
        return self._mode

    def get_examples(
        self, indices: Indices, key_indices: KeyIndices
    ) -> tuple[Any, ...]:
        rows = merge_rows(self._rows, indices, len(self._dataset), len(self))
        if key_indices is None:
            keys = self._keys
        elif self._keys is None:
            keys = tuple(key_indices)
        else:
            keys = tuple(self._keys[k] for k in key_indices)
        return self._dataset.get_examples(rows, keys)


class SliceHelper:
    """The object behind ``dataset.slice``; index it to get a view."""

    def __init__(self, dataset: TabularDataset) -> None:
        self._dataset = dataset

    def __getitem__(self, args: Any) -> Slice:
        if isinstance(args, tuple):
            if len(args) != 2:
                raise TypeError(
                    "TabularDataset.slice: expected [rows] or [rows, keys], got "
                    f"{len(args)} subscripts"
                )
            indices, keys = args
        else:
            indices, keys = args, None
        return Slice(self._dataset, indices, keys)
