"""Lazily split an iterable of tuples into one iterator per position."""

from __future__ import annotations

import collections
import weakref
from collections.abc import Iterable, Iterator
from typing import Any


class _Source:
    """The shared upstream iterator and one buffer per output position."""

    def __init__(self, iterator: Iterator[tuple[Any, ...]], first: tuple[Any, ...]):
        self.iterator = iterator
        self.n = len(first)
        self.buffers: list[collections.deque[Any]] = [
            collections.deque([v]) for v in first
        ]
        self.outputs: list[weakref.ref[_UnzippedIterator]] = []

    def fetch(self) -> None:
        values = next(self.iterator)
        if len(values) != self.n:
            raise ValueError(
                f"unzip: every item must have {self.n} elements like the "
                f"first, got {len(values)}"
            )
        for ref, buf, v in zip(self.outputs, self.buffers, values):
            # An output nobody holds any more buffers nothing, so unused
            # columns (e.g. input images) are not kept in memory.
            if ref() is not None:
                buf.append(v)


class _UnzippedIterator(Iterator[Any]):
    def __init__(self, source: _Source, index: int) -> None:
        self._source = source
        self._index = index

    def __next__(self) -> Any:
        buf = self._source.buffers[self._index]
        if not buf:
            self._source.fetch()
        return buf.popleft()


def unzip(iterable: Iterable[tuple[Any, ...]]) -> tuple[Iterator[Any], ...]:
    """Split an iterable of tuples into a tuple of iterators, lazily.

    ``unzip(zip(a, b))`` gives iterators over ``a`` and ``b``. Items are read
    from ``iterable`` only when some output needs them; values are buffered
    for outputs that have not reached them yet, and dropped for outputs that
    were deleted.

    Args:
        iterable: An iterable whose items are tuples of equal length.

    Returns:
        One iterator per tuple position; an empty tuple if ``iterable`` is
        empty.

    Example:
        >>> xs, ys = unzip(iter([(1, 'a'), (2, 'b')]))
        >>> list(xs), list(ys)
        ([1, 2], ['a', 'b'])
    """
    iterator = iter(iterable)
    try:
        first = next(iterator)
    except StopIteration:
        return ()
    first = tuple(first)
    source = _Source(iterator, first)
    outputs = tuple(_UnzippedIterator(source, i) for i in range(source.n))
    source.outputs = [weakref.ref(o) for o in outputs]
    return outputs
