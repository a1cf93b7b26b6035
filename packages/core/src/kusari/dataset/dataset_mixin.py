"""DatasetMixin: indexing (ints, slices, index lists) on top of get_example."""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from typing import Any

import numpy


class DatasetMixin:
    """Mixin that builds ``__getitem__`` from ``get_example`` and ``__len__``.

    Subclasses implement :meth:`__len__` and :meth:`get_example`; indexing with
    a slice, a list or an integer array then returns a list of examples.

    Example:
        >>> class Squares(DatasetMixin):
        ...     def __len__(self):
        ...         return 5
        ...     def get_example(self, i):
        ...         return i * i
        >>> d = Squares()
        >>> d[2], d[1:4], d[[0, 2]]
        (4, [1, 4, 9], [0, 4])
    """

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            return [self.get_example(i) for i in range(start, stop, step)]
        if isinstance(index, numbers.Integral):
            return self.get_example(int(index))
        if isinstance(index, (list, numpy.ndarray)):
            if isinstance(index, numpy.ndarray) and index.dtype == numpy.bool_:
                index = numpy.flatnonzero(index)
            return [self.get_example(int(i)) for i in index]
        raise TypeError(
            f"{type(self).__name__}.__getitem__: expected an int, a slice, a list "
            f"or an integer ndarray as index, got {type(index).__name__}"
        )

    def __iter__(self) -> Iterator[Any]:
        for i in range(len(self)):
            yield self.get_example(i)

    def __len__(self) -> int:
        """Return the number of examples."""
        raise NotImplementedError

    def get_example(self, i: int) -> Any:
        """Return the ``i``-th example."""
        raise NotImplementedError
