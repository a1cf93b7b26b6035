"""SliceableDataset: datasets whose examples are tuples of named columns.

``dataset.slice[indices, keys]`` returns a lazy view that, when indexed, asks
the underlying dataset only for the requested columns. A detection dataset can
then list its labels without decoding a single image.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator, Sequence
from typing import Any

import numpy

import kusari

#: A column name (``None`` for an unnamed column) or a column position.
Key = str | int | None


def _as_tuple(value: Any) -> tuple[Any, ...]:
    return value if isinstance(value, tuple) else (value,)


def _is_iterable(value: Any) -> bool:
    return isinstance(value, (tuple, list))


def _key_indices(requested: Any, names: Any, owner: str) -> tuple[int, ...]:
    """Translate column names or positions into positions in ``names``."""
    names = _as_tuple(names)
    indices = []
    for key in requested if _is_iterable(requested) else (requested,):
        if isinstance(key, numbers.Integral) and not isinstance(key, bool):
            position = int(key)
            if position < 0:
                position += len(names)
            if not 0 <= position < len(names):
                raise IndexError(
                    f"{owner}: key index {key} is out of range for the "
                    f"{len(names)} keys {names}"
                )
        else:
            try:
                position = names.index(key)
            except ValueError:
                raise KeyError(
                    f"{owner}: no key named {key!r}; the keys are {names}"
                ) from None
        indices.append(position)
    return tuple(indices)


class SliceableDataset(kusari.dataset.DatasetMixin):
    """Base class of datasets that support ``dataset.slice[indices, keys]``.

    A subclass implements :meth:`__len__`, the :attr:`keys` property and
    :meth:`get_example_by_keys`. :class:`GetterDataset` and
    :class:`TupleDataset` are the usual ways to build one.

    :attr:`keys` is a tuple of column names (an example is then a tuple) or a
    single name (an example is then that one value); a name may be ``None``.
    """

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must define __len__")

    @property
    def keys(self) -> Any:
        """Names of the returned columns: a tuple, or one name."""
        raise NotImplementedError(f"{type(self).__name__} must define keys")

    def get_example_by_keys(self, index: int, key_indices: tuple[int, ...]) -> tuple:
        """Return the columns ``key_indices`` (positions in :attr:`keys`)."""
        raise NotImplementedError(
            f"{type(self).__name__} must define get_example_by_keys"
        )

    def _check_index(self, index: int) -> int:
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(
                f"{type(self).__name__}: index {index} is out of range for a "
                f"dataset of length {n}"
            )
        return index

    def get_example(self, i: int) -> Any:
        """Return example ``i``: a tuple, or one value if keys is one name."""
        i = self._check_index(int(i))
        keys = self.keys
        if isinstance(keys, tuple):
            return self.get_example_by_keys(i, tuple(range(len(keys))))
        return self.get_example_by_keys(i, (0,))[0]

    @property
    def slice(self) -> SliceHelper:
        """Lazy views: ``dataset.slice[indices]`` or ``[indices, keys]``.

        Example:
            >>> from kusari_cv.chainer_experimental.datasets.sliceable import (
            ...     TupleDataset)
            >>> d = TupleDataset(('a', [0, 1, 2, 3]), ('b', [4, 5, 6, 7]))
            >>> list(d.slice[1:3, 'b'])
            [5, 6]
            >>> d.slice[[3, 0], ('b', 'a')][0]
            (7, 3)
        """
        return SliceHelper(self)

    def __iter__(self) -> Iterator[Any]:
        for i in range(len(self)):
            yield self.get_example(i)


def _normalize_index(index: Any, length: int) -> Sequence[int]:
    """Turn a slice, an index list or a boolean mask into a sequence of ints."""
    if isinstance(index, slice):
        return range(*index.indices(length))
    array = numpy.asarray(index)
    if array.ndim != 1:
        raise TypeError(
            "SliceableDataset.slice: indices must be a slice or a 1-D list or "
            f"array of ints or bools, got shape {array.shape}"
        )
    if array.dtype == numpy.bool_:
        if len(array) != length:
            raise IndexError(
                f"SliceableDataset.slice: a boolean mask must have the "
                f"dataset's length {length}, got {len(array)}"
            )
        return [int(i) for i in numpy.flatnonzero(array)]
    if len(array) == 0:
        return []
    if array.dtype.kind not in "iu":
        raise TypeError(
            "SliceableDataset.slice: indices must be ints or bools, got "
            f"dtype {array.dtype}"
        )
    out = []
    for i in array.tolist():
        j = i + length if i < 0 else i
        if not 0 <= j < length:
            raise IndexError(
                f"SliceableDataset.slice: index {i} is out of range for a "
                f"dataset of length {length}"
            )
        out.append(j)
    return out


class SliceHelper:
    """The object behind :attr:`SliceableDataset.slice`."""

    def __init__(self, dataset: SliceableDataset) -> None:
        self._dataset = dataset

    def __getitem__(self, args: Any) -> SlicedDataset:
        if isinstance(args, tuple):
            if len(args) != 2:
                raise TypeError(
                    "SliceableDataset.slice: expected [indices] or "
                    f"[indices, keys], got {len(args)} items"
                )
            index, keys = args
        else:
            index, keys = args, self._dataset.keys
        owner = f"{type(self._dataset).__name__}.slice"
        positions = _key_indices(keys, self._dataset.keys, owner)
        selection: tuple[int, ...] | int = (
            positions if _is_iterable(keys) else positions[0]
        )
        return SlicedDataset(
            self._dataset, _normalize_index(index, len(self._dataset)), selection
        )


class SlicedDataset(SliceableDataset):
    """A lazy view of some rows and columns of a :class:`SliceableDataset`."""

    def __init__(
        self,
        dataset: SliceableDataset,
        indices: Sequence[int],
        selection: tuple[int, ...] | int,
    ) -> None:
        self._dataset = dataset
        self._indices = indices
        self._selection = selection

    def __len__(self) -> int:
        return len(self._indices)

    @property
    def keys(self) -> Any:
        names = _as_tuple(self._dataset.keys)
        if isinstance(self._selection, tuple):
            return tuple(names[i] for i in self._selection)
        return names[self._selection]

    def get_example_by_keys(self, index: int, key_indices: tuple[int, ...]) -> tuple:
        selection = _as_tuple(self._selection)
        return self._dataset.get_example_by_keys(
            self._indices[index], tuple(selection[k] for k in key_indices)
        )
