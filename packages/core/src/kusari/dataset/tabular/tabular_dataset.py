"""TabularDataset: a dataset of rows with named columns."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy

from kusari import backend
from kusari.dataset.dataset_mixin import DatasetMixin

#: Rows requested from :meth:`TabularDataset.get_examples`.
Indices = slice | Sequence[int] | None
#: Columns requested from :meth:`TabularDataset.get_examples`.
KeyIndices = Sequence[int] | None


def _is_array(x: Any) -> bool:
    if isinstance(x, numpy.ndarray):
        return True
    return type(x).__module__.split(".")[0] == "cupy" and hasattr(x, "shape")


def _as_array(data: Any) -> Any:
    if _is_array(data):
        return data
    if len(data) and _is_array(data[0]):
        xp = backend.get_array_module(data[0])
        return xp.stack(list(data))
    return numpy.asarray(data)


class TabularDataset(DatasetMixin):
    """Abstract dataset whose examples all have the same named columns.

    An example is a tuple (``mode`` is :class:`tuple`), a dict (``mode`` is
    :class:`dict`) or, for a single column, the bare value (``mode`` is
    ``None``). Subclasses implement :meth:`__len__`, :attr:`keys`,
    :attr:`mode` and :meth:`get_examples`, which returns whole columns at
    once so that operations can work column-wise.

    Example:
        >>> import numpy as np
        >>> class Table(TabularDataset):
        ...     def __len__(self):
        ...         return 3
        ...     @property
        ...     def keys(self):
        ...         return ('a', 'b')
        ...     @property
        ...     def mode(self):
        ...         return tuple
        ...     def get_examples(self, indices, key_indices):
        ...         cols = [np.arange(3), np.arange(3) * 10]
        ...         if key_indices is not None:
        ...             cols = [cols[k] for k in key_indices]
        ...         if indices is not None:
        ...             cols = [c[indices] for c in cols]
        ...         return tuple(cols)
        >>> t = Table()
        >>> t[1]
        (np.int64(1), np.int64(10))
        >>> t.slice[[2, 0], 'b'].fetch()
        array([20,  0])
    """

    def __len__(self) -> int:
        raise NotImplementedError

    @property
    def keys(self) -> tuple[str, ...]:
        """Names of the columns."""
        raise NotImplementedError

    @property
    def mode(self) -> type | None:
        """:class:`tuple`, :class:`dict` or ``None`` (a single bare column)."""
        raise NotImplementedError

    def get_examples(
        self, indices: Indices, key_indices: KeyIndices
    ) -> tuple[Any, ...]:
        """Return the requested columns, restricted to the requested rows.

        Args:
            indices: A slice or a list of row indices; ``None`` means all.
            key_indices: Positions of the columns in :attr:`keys`; ``None``
                means all.

        Returns:
            A tuple with one list or array per requested column.
        """
        raise NotImplementedError

    def __repr__(self) -> str:
        mode = getattr(self.mode, "__name__", None)
        return f"<{type(self).__name__} len={len(self)} keys={self.keys} mode={mode}>"

    def __iter__(self) -> Iterator[Any]:
        for i in range(len(self)):
            yield self.get_example(i)

    def get_example(self, i: int) -> Any:
        """Return row ``i`` as a tuple, a dict or a bare value (see ``mode``)."""
        n = len(self)
        if not -n <= i < n:
            raise IndexError(
                f"{type(self).__name__}: index {i} is out of range for a dataset "
                f"of length {n}"
            )
        columns = self.get_examples([i % n], None)
        return self._pack(tuple(col[0] for col in columns))

    def _pack(self, values: tuple[Any, ...]) -> Any:
        mode = self.mode
        if mode is tuple:
            return values
        if mode is dict:
            return dict(zip(self.keys, values, strict=True))
        return values[0]

    @property
    def slice(self) -> Any:
        """Row/column view: ``dataset.slice[rows]`` or ``[rows, keys]``.

        ``rows`` is a slice or a list/array of ints or bools; ``keys`` is a
        key (name or position; the view then has ``mode`` ``None``) or a
        tuple/list of keys.
        """
        from kusari.dataset.tabular._slice import SliceHelper

        return SliceHelper(self)

    def fetch(self) -> Any:
        """Return all data column-major: a tuple, a dict or one column."""
        return self._pack(self.get_examples(None, None))

    def convert(self, data: Any) -> Any:
        """Turn fetched columns into arrays (lists become NumPy arrays)."""
        if isinstance(data, tuple):
            return tuple(_as_array(d) for d in data)
        if isinstance(data, dict):
            return {k: _as_array(v) for k, v in data.items()}
        return _as_array(data)

    def astuple(self) -> TabularDataset:
        """Return a view whose examples are tuples."""
        from kusari.dataset.tabular._ops import AsMode

        return AsMode(self, tuple)

    def asdict(self) -> TabularDataset:
        """Return a view whose examples are dicts keyed by :attr:`keys`."""
        from kusari.dataset.tabular._ops import AsMode

        return AsMode(self, dict)

    # Chainer 7.x spells these both ways depending on the release.
    as_tuple = astuple
    as_dict = asdict

    def concat(self, *datasets: TabularDataset) -> TabularDataset:
        """Stack datasets with the same keys row-wise."""
        from kusari.dataset.tabular._concat import Concat

        return Concat(self, *datasets)

    def join(self, *datasets: TabularDataset) -> TabularDataset:
        """Put datasets of the same length side by side (column-wise)."""
        from kusari.dataset.tabular._ops import Join

        return Join(self, *datasets)

    def transform(
        self, keys: str | Sequence[str], transform: Callable[..., Any]
    ) -> TabularDataset:
        """Apply ``transform`` to every example, producing columns ``keys``.

        ``transform`` receives the example's values as positional arguments
        (tuple or single-column mode) or keyword arguments (dict mode) and
        returns a tuple, a dict or a single value.
        """
        from kusari.dataset.tabular._transform import Transform

        return Transform(self, keys, transform)

    def transform_batch(
        self, keys: str | Sequence[str], transform_batch: Callable[..., Any]
    ) -> TabularDataset:
        """Like :meth:`transform` but called once with whole columns."""
        from kusari.dataset.tabular._transform import TransformBatch

        return TransformBatch(self, keys, transform_batch)

    def with_converter(self, converter: Callable[..., Any]) -> TabularDataset:
        """Return a view whose :meth:`convert` calls ``converter``."""
        from kusari.dataset.tabular._ops import WithConverter

        return WithConverter(self, converter)
