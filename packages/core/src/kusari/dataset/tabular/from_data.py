"""Build tabular datasets from lists, arrays and callables."""

from __future__ import annotations

import itertools
from typing import Any

from kusari.dataset.tabular._slice import as_row_range
from kusari.dataset.tabular.tabular_dataset import (
    Indices,
    KeyIndices,
    TabularDataset,
    _is_array,
)


class _Column(TabularDataset):
    """One list or array as a single-column dataset."""

    def __init__(self, key: str, data: Any) -> None:
        self._key = key
        self._data = data

    def __len__(self) -> int:
        return len(self._data)

    @property
    def keys(self) -> tuple[str, ...]:
        return (self._key,)

    @property
    def mode(self) -> type | None:
        return None

    def get_examples(
        self, indices: Indices, key_indices: KeyIndices
    ) -> tuple[Any, ...]:
        n = 1 if key_indices is None else len(key_indices)
        if indices is None:
            column = self._data
        elif isinstance(indices, slice) or _is_array(self._data):
            column = self._data[
                indices if isinstance(indices, slice) else list(indices)
            ]
        else:
            column = [self._data[i] for i in indices]
        return (column,) * n


class _Index(TabularDataset):
    """The row numbers ``0 .. size-1`` as a column named ``'index'``."""

    def __init__(self, size: int) -> None:
        self._size = size

    def __len__(self) -> int:
        return self._size

    @property
    def keys(self) -> tuple[str, ...]:
        return ("index",)

    @property
    def mode(self) -> type | None:
        return None

    def get_examples(
        self, indices: Indices, key_indices: KeyIndices
    ) -> tuple[Any, ...]:
        rows = as_row_range(indices, self._size)
        column = list(range(self._size) if rows is None else rows)
        return (column,) * (1 if key_indices is None else len(key_indices))


def _is_keys(x: Any) -> bool:
    return isinstance(x, str) or (
        isinstance(x, tuple) and len(x) > 0 and all(isinstance(k, str) for k in x)
    )


#: Numbers the unnamed columns of the whole process, so that datasets built by
#: separate from_data calls can still be joined (Chainer names them by id).
_unnamed = itertools.count()


def _make(key: Any, data: Any, size: int | None) -> TabularDataset:
    if _is_array(data) or isinstance(data, list):
        return _Column(f"_{next(_unnamed)}" if key is None else key, data)
    if callable(data):
        if key is None:
            raise ValueError("from_data: a callable needs key(s), e.g. ('x', f)")
        if size is None:
            raise ValueError(
                "from_data: size= is required when the data has only callables"
            )
        return _Index(size).transform(key, data)
    raise TypeError(
        "from_data: expected a list, an array or a callable as data, got "
        f"{type(data).__name__}"
    )


def _infer_size(items: list[Any], size: int | None) -> int | None:
    for d in items:
        if size is None and (_is_array(d) or isinstance(d, list)):
            size = len(d)
    return size


def from_data(data: Any, *, size: int | None = None) -> TabularDataset:
    """Create a :class:`TabularDataset` from lists, arrays or callables.

    Accepted forms:

    * ``list`` or array: one unnamed column (examples are bare values);
    * ``(key, list/array/callable)`` or ``((key, ...), callable)``;
    * a tuple of the above (examples are tuples);
    * a dict ``{key: list/array/callable, (key, ...): callable}``
      (examples are dicts).

    A callable receives the row index and returns the value(s).

    Args:
        data: The data in one of the forms above.
        size: Number of rows; required when there are only callables.

    Example:
        >>> d = from_data((('a', [1, 2, 3]), ('b', lambda i: i * 10)))
        >>> d.keys, d[2]
        (('a', 'b'), (3, 20))
        >>> from_data({'x': [5, 6]})[1]
        {'x': 6}
    """
    if isinstance(data, tuple):
        if len(data) == 2 and _is_keys(data[0]):
            return _make(data[0], data[1], _infer_size([data[1]], size))
        entries = [d if isinstance(d, tuple) else (None, d) for d in data]
        if not entries:
            raise ValueError("from_data: the tuple of columns is empty")
        size = _infer_size([d for _, d in entries], size)
        parts = [_make(k, d, size) for k, d in entries]
        return parts[0].join(*parts[1:]).astuple()
    if isinstance(data, dict):
        if not data:
            raise ValueError("from_data: the dict of columns is empty")
        size = _infer_size(list(data.values()), size)
        parts = [_make(k, d, size) for k, d in data.items()]
        return parts[0].join(*parts[1:]).asdict()
    return _make(None, data, size)
