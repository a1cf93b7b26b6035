"""TransformDataset: apply a function to every example on access."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kusari.dataset.dataset_mixin import DatasetMixin


class TransformDataset(DatasetMixin):
    """Dataset returning ``transform(dataset[i])``, computed lazily.

    Args:
        dataset: The underlying dataset.
        transform: Function applied to each example (e.g. augmentation).

    Example:
        >>> d = TransformDataset([1, 2, 3], lambda x: x * 10)
        >>> d[2], len(d)
        (30, 3)
    """

    def __init__(self, dataset: Any, transform: Callable[[Any], Any]) -> None:
        if not callable(transform):
            raise TypeError(
                f"TransformDataset: transform must be callable, got "
                f"{type(transform).__name__}"
            )
        self._dataset = dataset
        self._transform = transform

    def __repr__(self) -> str:
        return f"TransformDataset(len={len(self)}, transform={self._transform!r})"

    def __len__(self) -> int:
        return len(self._dataset)

    def get_example(self, i: int) -> Any:
        return self._transform(self._dataset[i])
