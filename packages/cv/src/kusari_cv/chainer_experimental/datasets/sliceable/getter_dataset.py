"""GetterDataset: a sliceable dataset assembled from per-column getters."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kusari_cv.chainer_experimental.datasets.sliceable.sliceable_dataset import (
    SliceableDataset,
    _as_tuple,
    _is_iterable,
    _key_indices,
)


class GetterDataset(SliceableDataset):
    """A sliceable dataset whose columns come from registered getters.

    Each getter takes an index and returns one column, or a tuple of columns
    registered together. When an example is read, only the getters of the
    requested columns run, each at most once.

    Setting :attr:`keys` picks (and orders) the columns an example returns; a
    single name instead of a tuple makes examples that one value.

    Example:
        >>> class Squares(GetterDataset):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.add_getter('x', lambda i: i)
        ...         self.add_getter(('sq', 'cube'), lambda i: (i * i, i ** 3))
        ...     def __len__(self):
        ...         return 4
        >>> d = Squares()
        >>> d.keys, d[2]
        (('x', 'sq', 'cube'), (2, 4, 8))
        >>> list(d.slice[:, 'cube'])
        [0, 1, 8, 27]
        >>> d.keys = ('cube', 'x')
        >>> d[3]
        (27, 3)
    """

    def __init__(self) -> None:
        self._getters: list[Callable[[int], Any]] = []
        # How many columns each getter returns (None: the value itself).
        self._widths: list[int | None] = []
        # One entry per column: (name, getter position, position in the
        # getter's tuple or None when the getter returns the value itself).
        self._entries: list[tuple[Any, int, int | None]] = []
        self._selection: tuple[int, ...] | int | None = None

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must define __len__")

    @property
    def keys(self) -> Any:
        names = tuple(name for name, _, _ in self._entries)
        if self._selection is None:
            return names
        if isinstance(self._selection, tuple):
            return tuple(names[i] for i in self._selection)
        return names[self._selection]

    @keys.setter
    def keys(self, keys: Any) -> None:
        names = tuple(name for name, _, _ in self._entries)
        positions = _key_indices(keys, names, f"{type(self).__name__}.keys")
        self._selection = positions if _is_iterable(keys) else positions[0]

    def add_getter(self, keys: Any, getter: Callable[[int], Any]) -> None:
        """Register ``getter`` for the column(s) ``keys``.

        Args:
            keys: A name (the getter returns that value), a tuple or list of
                names (the getter returns a tuple of that length), or an int
                ``n`` for ``n`` unnamed columns.
            getter: ``getter(index)`` returning the column value(s).

        Once :attr:`keys` has been set, new columns are not returned until
        :attr:`keys` is set again to include them.
        """
        if isinstance(keys, int) and not isinstance(keys, bool):
            if keys < 1:
                raise ValueError(
                    f"{type(self).__name__}.add_getter: a column count must "
                    f"be >= 1, got {keys}"
                )
            keys = None if keys == 1 else (None,) * keys
        self._getters.append(getter)
        position = len(self._getters) - 1
        if _is_iterable(keys):
            self._widths.append(len(keys))
            for sub, key in enumerate(keys):
                self._entries.append((key, position, sub))
        else:
            self._widths.append(None)
            self._entries.append((keys, position, None))

    def get_example_by_keys(self, index: int, key_indices: tuple[int, ...]) -> tuple:
        if self._selection is None:
            columns = key_indices
        else:
            selection = _as_tuple(self._selection)
            columns = tuple(selection[k] for k in key_indices)
        results: dict[int, Any] = {}
        example = []
        for column in columns:
            name, position, sub = self._entries[column]
            if position not in results:
                value = self._getters[position](index)
                width = self._widths[position]
                if width is not None:
                    if not _is_iterable(value) or len(value) != width:
                        raise ValueError(
                            f"{type(self).__name__}: the getter of {name!r} "
                            f"must return a tuple of {width} values, got "
                            f"{type(value).__name__}"
                        )
                results[position] = value
            value = results[position]
            example.append(value if sub is None else value[sub])
        return tuple(example)
