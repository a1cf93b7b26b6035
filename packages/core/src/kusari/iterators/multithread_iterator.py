"""MultithreadIterator: examples loaded by a thread pool."""

from __future__ import annotations

import multiprocessing.pool
from typing import Any

from kusari.iterators._pooled import PooledIterator
from kusari.iterators._state import Sampler


class MultithreadIterator(PooledIterator):
    """Iterator that loads examples with threads, prefetching the next batch.

    Threads suit datasets whose ``__getitem__`` releases the GIL (file I/O,
    image decoding in C); the batches equal :class:`SerialIterator`'s.

    Args:
        dataset: Anything with ``len()`` and integer indexing.
        batch_size: Number of examples per batch.
        repeat: Loop forever (``True``) or stop after one epoch.
        shuffle: Shuffle every epoch (``None``: unless ``order_sampler``).
        n_threads: Number of worker threads.
        order_sampler: Custom order sampler (see :class:`SerialIterator`).

    Example:
        >>> with MultithreadIterator(list(range(4)), 2, repeat=False,
        ...                          shuffle=False, n_threads=2) as it:
        ...     list(it)
        [[0, 1], [2, 3]]
    """

    def __init__(
        self,
        dataset: Any,
        batch_size: int,
        repeat: bool = True,
        shuffle: bool | None = None,
        n_threads: int = 1,
        order_sampler: Sampler | None = None,
    ) -> None:
        if not isinstance(n_threads, int) or n_threads < 1:
            raise ValueError(
                f"MultithreadIterator: n_threads must be a positive int, got "
                f"{n_threads!r}"
            )
        self._setup(dataset, batch_size, repeat, shuffle, order_sampler)
        self.n_threads = n_threads
        self._n_workers = n_threads
        self.n_prefetch = 1
        self.dataset_timeout = None
        self._init_pool_state()
        self.reset()

    def _make_pool(self) -> Any:
        return multiprocessing.pool.ThreadPool(self.n_threads)

    def _fetch_async(self, pool: Any, indices: list[int]) -> Any:
        return pool.map_async(
            self.dataset.__getitem__, indices, self._chunksize(len(indices))
        )
