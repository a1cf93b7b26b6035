"""TransformDataset: a sliceable dataset that applies a function to examples."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kusari_cv.chainer_experimental.datasets.sliceable.getter_dataset import (
    GetterDataset,
)
from kusari_cv.chainer_experimental.datasets.sliceable.sliceable_dataset import (
    _is_iterable,
)


class TransformDataset(GetterDataset):
    """A sliceable version of :class:`kusari.datasets.TransformDataset`.

    ``TransformDataset(dataset, keys, transform)`` names the values that
    ``transform`` returns; ``TransformDataset(dataset, transform)`` reads the
    first example once to count them and leaves them unnamed.

    Args:
        dataset: The underlying dataset (anything with ``__len__`` and
            ``__getitem__``).
        keys: A name, a tuple of names, or an int count of returned values.
        transform: ``transform(example) -> new example``.

    Example:
        >>> d = TransformDataset([1, 2, 3], ('x', 'double'), lambda v: (v, 2 * v))
        >>> d.keys, d[1]
        (('x', 'double'), (2, 4))
        >>> list(d.slice[:, 'double'])
        [2, 4, 6]
    """

    def __init__(
        self, dataset: Any, keys: Any, transform: Callable[[Any], Any] | None = None
    ) -> None:
        if transform is None:
            if not callable(keys):
                raise TypeError(
                    "TransformDataset: expected (dataset, keys, transform) or "
                    f"(dataset, transform), got a non-callable {type(keys).__name__}"
                )
            keys, transform = None, keys
        super().__init__()
        self._dataset = dataset
        self._transform = transform
        if keys is None:
            sample = self._get(0)
            keys = (None,) * len(sample) if isinstance(sample, tuple) else None
        elif isinstance(keys, int) and not isinstance(keys, bool):
            keys = None if keys == 1 else (None,) * keys
        self.add_getter(keys, self._get)
        if not _is_iterable(keys):
            self.keys = 0  # one value: examples are that value, not 1-tuples

    def __len__(self) -> int:
        return len(self._dataset)

    def _get(self, index: int) -> Any:
        return self._transform(self._dataset[index])
