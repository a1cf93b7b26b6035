"""TupleDataset: sliceable columns side by side."""

from __future__ import annotations

from typing import Any

from kusari_cv.chainer_experimental.datasets.sliceable.sliceable_dataset import (
    SliceableDataset,
    _as_tuple,
)


class TupleDataset(SliceableDataset):
    """A sliceable version of :class:`kusari.datasets.TupleDataset`.

    Each argument is a :class:`SliceableDataset` (all its columns are taken,
    with their names), a ``(name, array)`` pair, or an array (an unnamed
    column). All must have the same length. Reading a column of a sliceable
    argument reads only that column of it.

    Example:
        >>> d = TupleDataset(('x', [0, 1, 2]), [0, 1, 4])
        >>> d.keys
        ('x', None)
        >>> d[2]
        (2, 4)
        >>> list(d.slice[:, 1])
        [0, 1, 4]
    """

    def __init__(self, *datasets: Any) -> None:
        if not datasets:
            raise ValueError("TupleDataset: at least one dataset is required")
        self._datasets: list[Any] = []
        # One entry per column: (name, dataset position, column position in a
        # sliceable dataset or None for a plain array).
        self._entries: list[tuple[Any, int, int | None]] = []
        self._length: int | None = None
        for dataset in datasets:
            columns: list[tuple[Any, int | None]]
            if isinstance(dataset, SliceableDataset):
                columns = [(k, i) for i, k in enumerate(_as_tuple(dataset.keys))]
            elif isinstance(dataset, tuple):
                if len(dataset) != 2:
                    raise ValueError(
                        "TupleDataset: a tuple argument must be (name, array), "
                        f"got a tuple of {len(dataset)} items"
                    )
                name, dataset = dataset
                columns = [(name, None)]
            else:
                columns = [(None, None)]
            if self._length is None:
                self._length = len(dataset)
            elif len(dataset) != self._length:
                raise ValueError(
                    "TupleDataset: all datasets must have the same length, got "
                    f"{self._length} and {len(dataset)}"
                )
            self._datasets.append(dataset)
            for name, sub in columns:
                self._entries.append((name, len(self._datasets) - 1, sub))

    def __len__(self) -> int:
        assert self._length is not None
        return self._length

    @property
    def keys(self) -> tuple[Any, ...]:
        return tuple(name for name, _, _ in self._entries)

    def get_example_by_keys(self, index: int, key_indices: tuple[int, ...]) -> tuple:
        # Group the requested columns by dataset, so a sliceable dataset is
        # asked once for all of its columns.
        wanted: dict[int, list[int]] = {}
        for k in key_indices:
            _, position, sub = self._entries[k]
            if sub is not None:
                wanted.setdefault(position, [])
                if sub not in wanted[position]:
                    wanted[position].append(sub)
        values: dict[tuple[int, int | None], Any] = {}
        for position, subs in wanted.items():
            got = self._datasets[position].get_example_by_keys(index, tuple(subs))
            values.update(((position, s), v) for s, v in zip(subs, got, strict=True))
        example = []
        for k in key_indices:
            _, position, sub = self._entries[k]
            if sub is None:
                example.append(self._datasets[position][index])
            else:
                example.append(values[(position, sub)])
        return tuple(example)
