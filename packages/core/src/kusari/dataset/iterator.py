"""The base class of dataset iterators."""

from __future__ import annotations

from types import TracebackType
from typing import Any


class Iterator:
    """Base class of dataset iterators.

    An iterator yields minibatches (lists of examples) forever or for one
    epoch. Subclasses implement :meth:`__next__` and usually :meth:`serialize`
    so that a training run can be resumed at the same position.

    Example:
        >>> class Twice(Iterator):
        ...     def __init__(self):
        ...         self.n = 0
        ...     def __next__(self):
        ...         if self.n == 2:
        ...             raise StopIteration
        ...         self.n += 1
        ...         return [self.n]
        >>> with Twice() as it:
        ...     list(it)
        [[1], [2]]
    """

    def __iter__(self) -> Iterator:
        return self

    def __next__(self) -> Any:
        """Return the next minibatch."""
        raise NotImplementedError

    def next(self) -> Any:
        """Python-2-style alias of :meth:`__next__` kept for Chainer code."""
        return self.__next__()

    def finalize(self) -> None:
        """Release resources (worker processes, threads); a no-op by default."""

    def __enter__(self) -> Iterator:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.finalize()

    def serialize(self, serializer: Any) -> None:
        """Save or load the iteration state; a no-op by default."""
