"""DelegateDataset: a base for custom datasets that wrap a tabular dataset."""

from __future__ import annotations

from typing import Any

from kusari.dataset.tabular.tabular_dataset import (
    Indices,
    KeyIndices,
    TabularDataset,
)


class DelegateDataset(TabularDataset):
    """A tabular dataset that forwards everything to another one.

    Subclass it to give a tabular pipeline a name of its own.

    Args:
        dataset: The tabular dataset to forward to.

    Example:
        >>> from kusari.dataset import tabular
        >>> class Squares(DelegateDataset):
        ...     def __init__(self, n):
        ...         super().__init__(
        ...             tabular.from_data(('x', lambda i: i * i), size=n))
        >>> Squares(4)[3]
        9
    """

    def __init__(self, dataset: TabularDataset) -> None:
        if not isinstance(dataset, TabularDataset):
            raise TypeError(
                "DelegateDataset: expected a TabularDataset, got "
                f"{type(dataset).__name__}"
            )
        self.dataset = dataset

    def __len__(self) -> int:
        return len(self.dataset)

    @property
    def keys(self) -> tuple[str, ...]:
        return self.dataset.keys

    @property
    def mode(self) -> type | None:
        return self.dataset.mode

    def get_examples(
        self, indices: Indices, key_indices: KeyIndices
    ) -> tuple[Any, ...]:
        return self.dataset.get_examples(indices, key_indices)

    def convert(self, data: Any) -> Any:
        return self.dataset.convert(data)
