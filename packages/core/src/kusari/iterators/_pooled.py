"""Prefetching iterators backed by a process or thread pool."""

from __future__ import annotations

import collections
import contextlib
import math
import multiprocessing.pool
import threading
import time
import warnings
import weakref
from typing import Any

from kusari.iterators._state import IteratorState, StatefulIterator


class TimeoutWarning(RuntimeWarning):
    """A batch took longer than ``dataset_timeout`` seconds to load."""


# How long finalize() lets the batches in flight finish before stopping the
# workers, and how long it waits for the pool to stop before giving up on it.
DRAIN_TIMEOUT = 2.0
SHUTDOWN_TIMEOUT = 10.0


def _shutdown(pool: Any) -> None:
    """Stop the pool's workers and threads, never waiting more than a bound.

    A worker killed while it sends a result holds the result queue's lock
    for ever, and ``Pool.terminate`` then waits for its task-handler thread,
    which needs that lock (a hang seen in full test runs, with prefetching
    workers). So the batches in flight are let finish first (up to
    ``DRAIN_TIMEOUT``; a hung dataset is killed after it), and the stop runs
    in a daemon thread: past ``SHUTDOWN_TIMEOUT`` the worker processes are
    killed and the stuck thread is left behind (daemon threads do not keep
    the interpreter alive).
    """
    done = threading.Event()

    def stop() -> None:
        pool.close()  # no new tasks; idle workers are safe to kill
        deadline = time.monotonic() + DRAIN_TIMEOUT
        while pool._cache and time.monotonic() < deadline:
            time.sleep(0.002)
        pool.terminate()
        pool.join()
        done.set()

    threading.Thread(target=stop, name="kusari-pool-shutdown", daemon=True).start()
    if done.wait(SHUTDOWN_TIMEOUT):
        return
    for worker in list(getattr(pool, "_pool", ())):
        if hasattr(worker, "kill") and worker.exitcode is None:
            worker.kill()
    warnings.warn(
        f"the worker pool did not stop within {SHUTDOWN_TIMEOUT:g} s; its "
        "worker processes were killed",
        RuntimeWarning,
        stacklevel=2,
    )


class PooledIterator(StatefulIterator):
    """Shared logic: keep ``n_prefetch`` batches in flight on a pool.

    Batch indices are computed in the main process, in order, so the result
    is the same as :class:`SerialIterator` with the same order sampler. The
    published state (what ``serialize`` saves) advances only when a batch is
    returned.

    The order sampler is called at the same moment as in
    :class:`SerialIterator`: in the ``next()`` that returns the batch ending
    the epoch, never while prefetching ahead of it. A sampler called early
    would have moved its random state (saved in snapshots, and possibly
    NumPy's global one) past the published position, so a resumed run
    would draw different orders. The cost: the batch that ends an epoch is
    not prefetched.
    """

    n_prefetch: int
    dataset_timeout: float | None
    _n_workers: int

    def _init_pool_state(self) -> None:
        self._pool: Any = None
        self._pending: collections.deque[tuple[Any, IteratorState]] = (
            collections.deque()
        )
        self._ahead: IteratorState | None = None
        self._finalizer: weakref.finalize | None = None

    def _make_pool(self) -> Any:
        raise NotImplementedError

    def _fetch_async(self, pool: Any, indices: list[int]) -> Any:
        raise NotImplementedError

    def _check_pool(self) -> None:
        """Raise if the pool can no longer deliver results (hook)."""

    def reset(self) -> None:
        """Go back to the start of epoch 0 and drop prefetched batches."""
        super().reset()
        if hasattr(self, "_pending"):
            self._on_state_loaded()

    def _on_state_loaded(self) -> None:
        self._pending.clear()
        self._ahead = None

    def _fill(self, may_draw: bool) -> None:
        """Start loading batches until ``n_prefetch`` are in flight.

        ``may_draw``: the next batch to hand out may be computed even if
        that calls the order sampler (only right before handing it out).
        """
        if self._pool is None:
            self._pool = self._make_pool()
            # Stops the workers when the iterator is garbage-collected or at
            # interpreter exit, even if finalize() is never called.
            self._finalizer = weakref.finalize(self, _shutdown, self._pool)
        state = self._state if self._ahead is None else self._ahead
        while len(self._pending) < self.n_prefetch:
            if (self._pending or not may_draw) and self._draws_order(state):
                break  # not the batch handed out next: see the class docstring
            state, indices = self._advance(state)
            if indices is None:
                break
            self._pending.append((self._fetch_async(self._pool, indices), state))
        self._ahead = state

    def _wait(self, result: Any) -> list[Any]:
        warned = False
        waited = 0.0
        limit = self.dataset_timeout
        # Poll at least as often as the timeout, so that a batch slower than
        # a short timeout is reported even when it arrives within a tick.
        tick = 0.5 if limit is None else max(min(0.5, limit), 1e-3)
        while True:
            try:
                return list(result.get(timeout=tick))
            except multiprocessing.TimeoutError:
                waited += tick
                self._check_pool()
                if limit is not None and waited >= limit and not warned:
                    warned = True
                    warnings.warn(
                        f"{type(self).__name__}: a batch has not loaded after "
                        f"{limit} s; the dataset may be stalled (a slow disk, a "
                        "deadlock in __getitem__, or too many workers)",
                        TimeoutWarning,
                        stacklevel=3,
                    )

    def __next__(self) -> list[Any]:
        self._previous_epoch_detail = self.epoch_detail
        try:
            self._fill(may_draw=True)
            if not self._pending:
                raise StopIteration
            result, state = self._pending.popleft()
            batch = self._wait(result)
            self._state = state
            # Keep the workers busy while the caller computes.
            self._fill(may_draw=False)
        except KeyboardInterrupt:
            self.finalize()
            raise
        return batch

    next = __next__

    def _chunksize(self, n: int) -> int:
        return max(1, math.ceil(n / max(self._n_workers, 1)))

    def finalize(self) -> None:
        """Stop the workers; a later ``next()`` starts new ones."""
        self._pool = None
        self._pending.clear()
        self._ahead = None
        finalizer, self._finalizer = self._finalizer, None
        if finalizer is not None:
            finalizer()  # runs _shutdown once and detaches it

    def __del__(self) -> None:
        # Best effort: at interpreter shutdown module globals may be gone.
        with contextlib.suppress(Exception):
            self.finalize()

    def __copy__(self) -> PooledIterator:
        """An iterator at the same position with no workers of its own yet.

        Chainer code copies iterators with :func:`copy.copy` to replay an
        epoch (Chainer 7 supported it for backward compatibility). The copy
        shares the dataset and order sampler, starts from the published
        position (what the next ``next()`` of this iterator would return) and
        starts its own pool on first use: batches prefetched here are not
        shared, so finalizing either iterator never stalls the other.
        """
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._init_pool_state()
        return other

    def __getstate__(self) -> dict[str, Any]:
        raise TypeError(f"{type(self).__name__} cannot be pickled (it owns a pool)")
