"""Containers used by the replay buffers."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["RandomAccessQueue"]


class RandomAccessQueue:
    """A FIFO queue with O(1) append, popleft, indexing and uniform sampling.

    Stored as a ring buffer when ``maxlen`` is given (appending to a full
    queue drops the oldest item), as a growing list otherwise.

    Example:
        >>> q = RandomAccessQueue(maxlen=2)
        >>> q.extend([1, 2, 3])
        >>> list(q), q[0], len(q)
        ([2, 3], 2, 2)
    """

    def __init__(self, iterable: Iterable[Any] = (), maxlen: int | None = None) -> None:
        if maxlen is not None and maxlen <= 0:
            raise ValueError(
                f"RandomAccessQueue: maxlen must be positive, got {maxlen}"
            )
        self.maxlen = maxlen
        self._data: list[Any] = []
        self._start = 0  # index of the oldest item in _data
        self.extend(iterable)

    def __len__(self) -> int:
        return len(self._data) - (0 if self.maxlen is not None else self._start)

    def _physical(self, i: int) -> int:
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("RandomAccessQueue index out of range")
        if self.maxlen is None:
            return self._start + i
        return (self._start + i) % len(self._data)

    def __getitem__(self, i: int) -> Any:
        return self._data[self._physical(i)]

    def __setitem__(self, i: int, value: Any) -> None:
        self._data[self._physical(i)] = value

    def __iter__(self) -> Iterator[Any]:
        for i in range(len(self)):
            yield self[i]

    def __repr__(self) -> str:
        return f"RandomAccessQueue({list(self)!r}, maxlen={self.maxlen})"

    def append(self, item: Any) -> None:
        data = self._data
        if self.maxlen is None or len(data) < self.maxlen:
            data.append(item)
        else:
            data[self._start] = item
            self._start = (self._start + 1) % self.maxlen

    def extend(self, items: Iterable[Any]) -> None:
        for item in items:
            self.append(item)

    def popleft(self) -> Any:
        if len(self) == 0:
            raise IndexError("pop from an empty RandomAccessQueue")
        if self.maxlen is None:
            item = self._data[self._start]
            self._data[self._start] = None
            self._start += 1
            # Compact once half of the list is dead space: amortised O(1).
            if self._start * 2 >= len(self._data):
                del self._data[: self._start]
                self._start = 0
            return item
        # Ring buffer: rotate into a plain list of the live items.
        items = list(self)
        item = items.pop(0)
        self._data = items
        self._start = 0
        return item

    def sample(self, k: int) -> list[Any]:
        """Return ``k`` distinct items chosen uniformly at random."""
        n = len(self)
        if k > n:
            raise ValueError(
                f"RandomAccessQueue.sample: asked for {k} items, only {n} stored"
            )
        data = self._data
        return [data[i] for i in self._sample_slots(k)]

    def _sample_slots(self, k: int) -> list[int]:
        # Every stored slot of a ring buffer is live, so sample slots directly.
        slots = random.sample(range(len(self)), k)
        if self.maxlen is None and self._start:
            return [self._start + i for i in slots]
        return slots

    def sample_slots(self, k: int) -> list[int]:
        """Like :meth:`sample`, but the storage slots of the chosen items.

        Uses the random numbers :meth:`sample` would; ``slot_item(s)`` is the
        item. Slots stay valid until the next :meth:`popleft`.
        """
        n = len(self)
        if k > n:
            raise ValueError(
                f"RandomAccessQueue.sample_slots: asked for {k} items, only {n} stored"
            )
        return self._sample_slots(k)

    def slot_item(self, slot: int) -> Any:
        """The item stored in ``slot`` (see :meth:`sample_slots`)."""
        return self._data[slot]

    def next_slot(self) -> int:
        """The slot the next :meth:`append` writes to."""
        if self.maxlen is None or len(self._data) < self.maxlen:
            return len(self._data)
        return self._start

    def __getstate__(self) -> dict[str, Any]:
        return {"maxlen": self.maxlen, "items": list(self)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.maxlen = state["maxlen"]
        self._data = []
        self._start = 0
        self.extend(state["items"])
