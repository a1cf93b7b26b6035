"""The intra-op thread pool: large array kernels split over the CPU cores.

BLAS already runs its GEMMs on several threads; the work around it (the
im2col / col2im copies of the convolutions, pooling, batch normalization,
large element-wise arithmetic and sums, the optimizers' element-wise
updates) is plain NumPy, which releases the GIL inside its loops.  Such a
kernel cuts its arrays into pieces (by sample, channel or flat range) and
hands them to :func:`parallel_for`, which runs them on a persistent pool of
worker threads plus the calling thread; :func:`elementwise` and
:func:`reduce_sum` do so for any ufunc and for sums.

Small work stays on the calling thread: a kernel asks :func:`plan` how many
pieces to make, and the answer is one below a size threshold, so the
small-op path pays one function call and no thread hand-off.

The pool size is ``KUSARI_NUM_THREADS`` when set, else ``OMP_NUM_THREADS``
(as PyTorch reads it), else the number of cores the process may run on (its
CPU affinity); :func:`set_num_threads` changes
it, and also sets the BLAS libraries' thread counts through
``threadpoolctl`` when that package is installed.

Example:
    >>> from kusari.utils import threads
    >>> previous = threads.get_num_threads()
    >>> threads.set_num_threads(2)
    >>> threads.get_num_threads()
    2
    >>> out = [0] * 4
    >>> def work(i):
    ...     out[i] = i * i
    >>> threads.parallel_for(work, 4)
    >>> out
    [0, 1, 4, 9]
    >>> threads.set_num_threads(previous)
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any

__all__ = [
    "MIN_ELEMENTS",
    "elementwise",
    "get_num_threads",
    "parallel_for",
    "plan",
    "reduce_sum",
    "set_num_threads",
    "split",
]

ENV_VAR = "KUSARI_NUM_THREADS"

# Bytes a piece of work must touch, at least, before it is worth handing to
# another thread: a hand-off costs some tens of microseconds (queue, wake-up,
# join), while one core streams about 1 byte per ns through a NumPy copy.
MIN_BYTES_PER_THREAD = 1 << 18

# Ranges per thread that :func:`run_split` makes, and the bytes a range must
# touch at least. One range per thread leaves a thread whose core is taken
# (by another process, or by OpenBLAS threads spin-waiting for their next
# GEMM) holding the others up; a few per thread let the free ones take over
# its share, for a few microseconds per extra range.
# At most MAX_CHUNKS ranges (more than threads only up to it): each costs
# a claim and a Python call under the GIL, which many threads would share.
OVERSPLIT = 4
MIN_BYTES_PER_CHUNK = 1 << 16
MAX_CHUNKS = 64

# Elements an element-wise operation or reduction needs before its caller
# asks :func:`elementwise` / :func:`reduce_sum` to split it. Callers test
# ``x.size >= MIN_ELEMENTS`` themselves, so that the small-op path pays one
# comparison. At this size one core takes some 150-200 us on a float32
# multiply (memory bound), several times the cost of a hand-off; below it
# the second thread's share barely pays for its wake-up on a busy machine.
MIN_ELEMENTS = 1 << 19


def _cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except OSError:  # pragma: no cover - platform specific
            pass
    return max(1, os.cpu_count() or 1)


def _default_threads() -> int:
    for var in (ENV_VAR, "OMP_NUM_THREADS"):
        value = os.environ.get(var, "").strip()
        if not value:
            continue
        try:
            n = int(value)
        except ValueError:
            n = 0
        if n >= 1:
            return n
        warnings.warn(
            f"kusari: {var} must be a positive integer, got {value!r}; ignored",
            RuntimeWarning,
            stacklevel=3,
        )
    return _cores()


class _Pool:
    """Worker threads that each wait on their own job queue."""

    def __init__(self, n_workers: int) -> None:
        self.queues: list[queue.SimpleQueue[Any]] = []
        self.threads: list[threading.Thread] = []
        for i in range(n_workers):
            q: queue.SimpleQueue[Any] = queue.SimpleQueue()
            t = threading.Thread(
                target=_worker, args=(q,), name=f"kusari-intraop-{i}", daemon=True
            )
            t.start()
            self.queues.append(q)
            self.threads.append(t)

    def close(self) -> None:
        for q in self.queues:
            q.put(None)


class _Job:
    """One :func:`parallel_for` call; whichever thread is free claims the next
    task. A worker that wakes late (its core taken by another process, or by
    BLAS threads spinning between GEMMs) so leaves its share to the threads
    running, and the caller waits for the tasks, not for the workers."""

    __slots__ = ("fn", "n", "next", "left", "lock", "done", "errors")

    def __init__(self, fn: Callable[[int], Any], n: int, first: int) -> None:
        self.fn: Callable[[int], Any] | None = fn
        self.n, self.next, self.left = n, first, n  # next unclaimed, unfinished
        self.lock = threading.Lock()
        self.done = threading.Lock()  # released when the last task ends
        self.done.acquire()
        self.errors: list[BaseException] = []

    def claim(self, ended: bool = False, error: BaseException | None = None) -> int:
        """The next task to run (``n``: none), after counting one that ended."""
        with self.lock:
            if ended:
                if error is not None:
                    # No task starts after a failure: count the unclaimed
                    # ones as ended.
                    self.errors.append(error)
                    self.left -= self.n - self.next
                    self.next = self.n
                self.left -= 1
                if self.left == 0:
                    self.done.release()
            i = self.next
            if i < self.n:
                self.next = i + 1
            return i

    def run(self, i: int) -> None:
        """Run task ``i`` and every task still unclaimed after it."""
        while i < self.n:
            error = None
            try:
                # fn is read at each call: the caller drops it once all tasks
                # have ended (and a claimed index means one has not).
                self.fn(i)  # type: ignore[misc]
            except BaseException as e:  # handed back to the caller
                error = e
            i = self.claim(True, error)


_local = threading.local()


def _worker(q: queue.SimpleQueue[Any]) -> None:
    # Work running here must not fan out again (the pool is busy with it).
    _local.inside = True
    while True:
        job = q.get()
        if job is None:
            return
        job.run(job.claim())
        # An idle worker must not keep the last job (and through a job that
        # ended late, its closure and the caller's arrays) alive.
        job = None


_state_lock = threading.Lock()
# Held by the one caller thread that is using the workers; others run serially.
_busy = threading.Lock()
_num_threads: int | None = None
_pool: _Pool | None = None


def get_num_threads() -> int:
    """The number of threads kusari's CPU kernels split their work over.

    Returns:
        The pool size, the calling thread included (1: no splitting).
    """
    global _num_threads
    n = _num_threads
    if n is None:
        with _state_lock:
            if _num_threads is None:
                _num_threads = _default_threads()
            n = _num_threads
    return n


def set_num_threads(n: int) -> None:
    """Set the number of threads of kusari's CPU kernels (and of BLAS).

    The thread pool is resized on its next use. When ``threadpoolctl`` is
    installed, the BLAS libraries loaded in the process (OpenBLAS, MKL, BLIS)
    are set to ``n`` threads too; otherwise their thread counts are left as
    they are (``OPENBLAS_NUM_THREADS`` etc. choose them at start-up).

    Args:
        n: Threads to use, at least 1.

    Raises:
        TypeError: ``n`` is not an integer.
        ValueError: ``n`` is less than 1.
    """
    global _num_threads, _pool
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(
            "kusari.set_num_threads: expected an int number of threads, "
            f"got {type(n).__name__} {n!r}"
        )
    if n < 1:
        raise ValueError(f"kusari.set_num_threads: expected n >= 1, got {n}")
    with _state_lock:
        _num_threads = n
    _set_blas_threads(n)


def _set_blas_threads(n: int) -> None:
    import threadpoolctl  # looked up each time: libraries loaded since count

    threadpoolctl.threadpool_limits(limits=n, user_api="blas")


_blas: Any = None


def blas_controller() -> Any:
    """threadpoolctl's controller of the BLAS libraries loaded when first
    asked, or None when it finds none (then BLAS threads cannot be set).

    Kernels that split their GEMMs over this pool hold BLAS to one thread
    with it (``blas_controller().limit(limits=1)``): OpenBLAS called from
    several threads while itself threaded serialises the calls, and its
    spinning threads take the cores from the pool's.
    """
    global _blas
    if _blas is None:
        import threadpoolctl

        _blas = threadpoolctl.ThreadpoolController().select(user_api="blas")
    return _blas or None


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS held to one thread inside the block (see :func:`blas_controller`);
    nothing changes where no BLAS library is found.

    For kernels whose GEMMs are each one pool thread's work. The libraries'
    own setters are called directly: ``ThreadpoolController.limit`` costs
    about three times as much, and a convolution or Linear layer enters
    this block on every call.
    """
    ctl = blas_controller()
    if ctl is None:
        yield
        return
    # Only the libraries not at one thread already are set (and reset): at
    # one thread, as kusari.set_num_threads(1) leaves them, the block costs
    # the reads alone.
    held = [
        (lib, n) for lib in ctl.lib_controllers if (n := lib.get_num_threads()) != 1
    ]
    for lib, _ in held:
        lib.set_num_threads(1)
    try:
        yield
    finally:
        for lib, n in held:
            lib.set_num_threads(n)


def _get_pool() -> _Pool:
    """The pool (called with ``_busy`` held), resized to the thread count."""
    global _pool
    workers = get_num_threads() - 1
    pool = _pool
    if pool is None or len(pool.threads) != workers:
        if pool is not None:
            pool.close()
        pool = _pool = _Pool(workers)
    return pool


def _after_fork() -> None:
    # A forked child has none of the parent's threads: start afresh.
    global _pool, _busy, _state_lock
    _pool = None
    _busy = threading.Lock()
    _state_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def plan(nbytes: int, n_items: int) -> int:
    """How many pieces to split work over ``n_items`` items touching ``nbytes``.

    Args:
        nbytes: Bytes the whole work reads and writes (a size estimate).
        n_items: The number of units it can be split into (samples, rows).

    Returns:
        The number of pieces to make: 1 (stay on this thread) below
        :data:`MIN_BYTES_PER_THREAD` per piece, on a single-thread pool,
        inside a worker, or while another thread uses the pool.
    """
    n = get_num_threads()
    if n <= 1 or n_items <= 1 or getattr(_local, "inside", False):
        return 1
    return max(1, min(n, n_items, nbytes // MIN_BYTES_PER_THREAD))


def split(n_items: int, pieces: int) -> list[tuple[int, int]]:
    """``pieces`` contiguous ``(start, stop)`` ranges covering ``n_items``."""
    pieces = max(1, min(pieces, n_items))
    base, extra = divmod(n_items, pieces)
    out = []
    start = 0
    for i in range(pieces):
        stop = start + base + (1 if i < extra else 0)
        out.append((start, stop))
        start = stop
    return out


def parallel_for(fn: Callable[[int], Any], n_tasks: int) -> None:
    """Run ``fn(0)``, ..., ``fn(n_tasks - 1)`` on the pool and wait for all.

    The calling thread runs task 0, then, like the workers, claims the next
    unclaimed task whenever it is free (so a worker that starts late takes
    a smaller share, or none). Tasks must write to disjoint
    outputs. Work is serial when there is one task, when called from inside
    a task, or while another thread is running a :func:`parallel_for`.
    When a task raises, no further task starts; the first exception is
    re-raised here once the tasks already running have ended.

    Args:
        fn: The task, called with its index.
        n_tasks: The number of tasks.
    """
    if (
        n_tasks <= 1
        or getattr(_local, "inside", False)
        or not _busy.acquire(blocking=False)
    ):
        for i in range(n_tasks):
            fn(i)
        return
    try:
        pool = _get_pool()
        workers = min(len(pool.threads), n_tasks - 1)
        # Task 0 is the caller's; the rest go to whoever claims them first.
        job = _Job(fn, n_tasks, 1)
        for q in pool.queues[:workers]:
            q.put(job)
        _local.inside = True
        try:
            job.run(0)
        finally:
            _local.inside = False
        job.done.acquire()
        job.fn = None
        if job.errors:
            raise job.errors[0]
    finally:
        _busy.release()


def run_split(fn: Callable[[int, int], Any], n_items: int, nbytes: int) -> None:
    """``fn(start, stop)`` over ranges of ``n_items``, in parallel when large.

    When split, the ranges are :data:`OVERSPLIT` times as many as the
    threads (as far as items, :data:`MIN_BYTES_PER_CHUNK` and
    :data:`MAX_CHUNKS` allow), so that
    a thread that starts late, or shares its core, leaves part of its share
    to the others (see :func:`parallel_for`).

    Args:
        fn: Processes items ``start:stop`` (disjoint outputs per range).
        n_items: Items to cover.
        nbytes: Estimated bytes the whole work touches (see :func:`plan`).
    """
    pieces = plan(nbytes, n_items)
    if pieces <= 1:
        fn(0, n_items)
        return
    chunks = min(n_items, pieces * OVERSPLIT, nbytes // MIN_BYTES_PER_CHUNK, MAX_CHUNKS)
    ranges = split(n_items, max(pieces, chunks))
    parallel_for(lambda i: fn(*ranges[i]), len(ranges))


def _pieces_for(n_items: int, nbytes: int) -> int:
    return plan(nbytes, n_items) if n_items > 1 else 1


# The split element-wise and reduction kernels live beside the pool; they
# are part of this module's public API.
from kusari.utils._threads_ops import elementwise, reduce_sum  # noqa: E402
