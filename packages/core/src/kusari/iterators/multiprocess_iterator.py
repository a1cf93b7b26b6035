"""MultiprocessIterator: examples loaded by worker processes."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
from typing import Any

from kusari.iterators._pooled import PooledIterator, TimeoutWarning
from kusari.iterators._state import Sampler

__all__ = ["MultiprocessIterator", "TimeoutWarning"]

# The dataset each worker process serves, set once by the pool initializer.
_worker_dataset: Any = None


def _worker_init(dataset: Any) -> None:
    global _worker_dataset
    _worker_dataset = dataset
    # Ctrl-C goes to the whole process group; the parent handles it and
    # terminates the pool, so workers must not die with their own tracebacks.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _worker_fetch(index: int) -> Any:
    return _worker_dataset[index]


class MultiprocessIterator(PooledIterator):
    """Iterator that loads examples in worker processes, prefetching batches.

    The main process decides the order (so results equal
    :class:`SerialIterator`'s with the same order sampler) and workers only
    call ``dataset[i]``. Works with the ``fork``, ``forkserver`` and
    ``spawn`` start methods; under ``spawn``/``forkserver`` the dataset must
    be picklable. Workers are stopped by :meth:`finalize`, by ``with``,
    when the iterator is garbage-collected, at interpreter exit, and when
    ``KeyboardInterrupt`` arrives while waiting for a batch.

    Args:
        dataset: Anything with ``len()`` and integer indexing.
        batch_size: Number of examples per batch.
        repeat: Loop forever (``True``) or stop after one epoch.
        shuffle: Shuffle every epoch (``None``: unless ``order_sampler``).
        n_processes: Number of workers (default: the number of CPUs).
        n_prefetch: Number of batches loaded ahead.
        shared_mem: Accepted for compatibility with Chainer. Examples travel
            through pipes; this size hint is currently unused.
        order_sampler: Custom order sampler (see :class:`SerialIterator`).
        dataset_timeout: Seconds after which a :class:`TimeoutWarning` says
            that a batch is slow to load (``None`` disables it).
        maxtasksperchild: Restart each worker after this many batches.
        mp_context: A ``multiprocessing`` context or start-method name;
            the default start method when ``None``.

    Example:
        >>> with MultiprocessIterator(list(range(4)), 2, repeat=False,
        ...                           shuffle=False, n_processes=2) as it:
        ...     list(it)
        [[0, 1], [2, 3]]
    """

    # Chainer's name of the warning (``MultiprocessIterator.TimeoutWarning``).
    TimeoutWarning = TimeoutWarning

    def __init__(
        self,
        dataset: Any,
        batch_size: int,
        repeat: bool = True,
        shuffle: bool | None = None,
        n_processes: int | None = None,
        n_prefetch: int = 1,
        shared_mem: int | None = None,
        order_sampler: Sampler | None = None,
        dataset_timeout: float | None = 30.0,
        maxtasksperchild: int | None = None,
        *,
        mp_context: Any = None,
    ) -> None:
        if n_processes is not None and (
            not isinstance(n_processes, int) or n_processes < 1
        ):
            raise ValueError(
                "MultiprocessIterator: n_processes must be a positive int or "
                f"None, got {n_processes!r}"
            )
        if not isinstance(n_prefetch, int) or n_prefetch < 1:
            raise ValueError(
                f"MultiprocessIterator: n_prefetch must be a positive int, got "
                f"{n_prefetch!r}"
            )
        self._setup(dataset, batch_size, repeat, shuffle, order_sampler)
        self.n_processes = n_processes or os.cpu_count() or 1
        self._n_workers = self.n_processes
        self.n_prefetch = n_prefetch
        self.shared_mem = shared_mem
        self.dataset_timeout = dataset_timeout
        self.maxtasksperchild = maxtasksperchild
        if mp_context is None or isinstance(mp_context, str):
            mp_context = multiprocessing.get_context(mp_context)
        self._context = mp_context
        self._worker_pids: set[int] = set()
        self._init_pool_state()
        self.reset()

    def _make_pool(self) -> Any:
        method = self._context.get_start_method()
        try:
            pool = self._context.Pool(
                self.n_processes,
                initializer=_worker_init,
                initargs=(self.dataset,),
                maxtasksperchild=self.maxtasksperchild,
            )
        except (pickle.PicklingError, TypeError, AttributeError) as e:
            if method == "fork":
                raise
            raise TypeError(
                f"MultiprocessIterator: cannot send the dataset to worker processes "
                f"started with {method!r}: {e}. With 'spawn' or 'forkserver' the "
                "dataset must be picklable (no lambdas or open files); define "
                "transforms at module level or use the 'fork' start method"
            ) from e
        self._worker_pids = {p.pid for p in pool._pool}
        return pool

    def _check_pool(self) -> None:
        # multiprocessing.Pool silently replaces a worker that died (killed,
        # segfault, out of memory) and loses its task, so waiting would never
        # end. Workers only change legitimately with maxtasksperchild.
        if self._pool is None or self.maxtasksperchild is not None:
            return
        dead = [p for p in list(self._pool._pool) if p.exitcode not in (None, 0)]
        current = {p.pid for p in list(self._pool._pool)}
        if dead or current != self._worker_pids:
            self.finalize()
            raise RuntimeError(
                "MultiprocessIterator: a worker process died unexpectedly (killed, "
                "crashed or out of memory); the iterator was finalized"
            )

    def _fetch_async(self, pool: Any, indices: list[int]) -> Any:
        return pool.map_async(_worker_fetch, indices, self._chunksize(len(indices)))
