"""Views combining tabular datasets: mode changes, join, converters."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
            # Every column of every dataset: each is asked for all its columns
            # (key_indices None), as Chainer does.
            return tuple(
                col for d in self._datasets for col in d.get_examples(indices, None)
            )
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
