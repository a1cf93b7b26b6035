"""The intra-op thread pool."""

from __future__ import annotations

import os
import threading
import time
import weakref

import numpy
import pytest
import threadpoolctl

from kusari.utils import threads


@pytest.fixture
def n_threads():
    old = threads.get_num_threads()
    blas = threadpoolctl.threadpool_limits(limits=None, user_api="blas")
    yield threads.set_num_threads
    threads.set_num_threads(old)
    blas.restore_original_limits()  # BLAS back to what the environment chose


def test_default_is_affinity(monkeypatch):
    monkeypatch.delenv(threads.ENV_VAR, raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert threads._default_threads() == len(os.sched_getaffinity(0))


def test_env_vars(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "5")
    monkeypatch.setenv(threads.ENV_VAR, "3")
    assert threads._default_threads() == 3
    monkeypatch.delenv(threads.ENV_VAR)
    assert threads._default_threads() == 5
    monkeypatch.delenv("OMP_NUM_THREADS")
    monkeypatch.setenv(threads.ENV_VAR, "zero")
    with pytest.warns(RuntimeWarning, match="KUSARI_NUM_THREADS.*'zero'"):
        assert threads._default_threads() == threads._cores()


def test_set_get(n_threads):
    n_threads(3)
    assert threads.get_num_threads() == 3
    with pytest.raises(ValueError, match="set_num_threads.*>= 1.*0"):
        n_threads(0)
    with pytest.raises(TypeError, match="set_num_threads.*int.*float"):
        n_threads(2.0)


def test_parallel_for_uses_other_threads(n_threads):
    n_threads(3)
    seen = [None] * 7
    barrier = threading.Barrier(3, timeout=10)

    def task(i):
        seen[i] = threading.get_ident()
        if i < 3:
            barrier.wait()  # three tasks running at once: three threads

    threads.parallel_for(task, 7)
    assert None not in seen
    assert len(set(seen[:3])) == 3
    assert seen[0] == threading.get_ident()


def test_idle_workers_keep_nothing_of_the_last_task(n_threads):
    # A worker that kept its last task's closure would keep the caller's
    # arrays alive (activations, gradients) until the next parallel call.
    n_threads(3)

    class Payload:
        pass

    payload = Payload()
    ref = weakref.ref(payload)

    def make_task(obj):
        def task(i):
            assert obj is not None

        return task

    task = make_task(payload)
    threads.parallel_for(task, 3)
    del task, payload
    assert ref() is None


def test_exception_propagates_and_pool_survives(n_threads):
    n_threads(2)

    def task(i):
        if i == 1:
            raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        threads.parallel_for(task, 2)
    out = []
    threads.parallel_for(out.append, 2)
    assert sorted(out) == [0, 1]


def test_nested_and_small_work_stay_serial(n_threads):
    n_threads(4)
    assert threads.plan(100, 10) == 1  # below the threshold
    assert threads.plan(threads.MIN_BYTES_PER_THREAD * 64, 10) == 4
    assert threads.plan(threads.MIN_BYTES_PER_THREAD * 64, 2) == 2
    inner = []

    def task(i):
        inner.append(threads.plan(1 << 40, 10))

    threads.parallel_for(task, 2)
    assert inner == [1, 1]


def test_one_thread_never_splits(n_threads):
    n_threads(1)
    assert threads.plan(1 << 40, 100) == 1
    out = []
    threads.run_split(lambda a, b: out.append((a, b)), 10, 1 << 40)
    assert out == [(0, 10)]


def test_split_covers():
    assert threads.split(10, 3) == [(0, 4), (4, 7), (7, 10)]
    assert threads.split(2, 5) == [(0, 1), (1, 2)]


def test_resize(n_threads):
    n_threads(3)
    threads.parallel_for(lambda i: None, 3)
    assert len(threads._pool.threads) == 2
    n_threads(2)
    threads.parallel_for(lambda i: None, 2)
    assert len(threads._pool.threads) == 1


def test_blas_threads_follow(n_threads):
    import numpy  # noqa: F401  (loads its BLAS)

    n_threads(1)
    infos = [i for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]
    assert infos and all(i["num_threads"] == 1 for i in infos)


def test_top_level_names_are_the_pool_functions():
    import kusari

    assert kusari.set_num_threads is threads.set_num_threads
    assert kusari.get_num_threads is threads.get_num_threads


@pytest.fixture
def split_small(monkeypatch):
    """Split even small work (so tests run on small arrays), counting tasks."""
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    calls = []
    original = threads.parallel_for

    def counting(fn, n_tasks):
        calls.append(n_tasks)
        return original(fn, n_tasks)

    monkeypatch.setattr(threads, "parallel_for", counting)
    return calls


def _operands(rng, shape, dtype):
    # Nonzero, of both signs (divisors too).
    x = rng.standard_normal(shape) * 10
    return (x + numpy.sign(x)).astype(dtype)


@pytest.mark.parametrize(
    "ufunc,shapes",
    [
        ("add", [(7, 5), (7, 5)]),  # flat pieces
        ("subtract", [(7, 5), (5,)]),  # broadcast: split along axis 0
        ("multiply", [(7, 1, 5), (1, 3, 5)]),
        ("true_divide", [(6, 4), 2.5]),
        ("true_divide", [3, (6, 4)]),
        ("negative", [(4, 9)]),
    ],
)
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64, numpy.int32])
def test_elementwise_is_exact(ufunc, shapes, dtype, n_threads, split_small):
    rng = numpy.random.default_rng(0)
    args = [_operands(rng, s, dtype) if isinstance(s, tuple) else s for s in shapes]
    fn = getattr(numpy, ufunc)
    expect = fn(*args)
    n_threads(3)
    got = threads.elementwise(fn, *args)
    assert split_small, "the work was not split"
    assert got.dtype == expect.dtype and got.shape == expect.shape
    numpy.testing.assert_array_equal(got, expect)


def test_elementwise_leaves_other_operands_to_the_ufunc(n_threads, split_small):
    n_threads(2)
    a = numpy.arange(6.0)
    # A list operand, a NumPy scalar: not split, still computed by the ufunc.
    numpy.testing.assert_array_equal(
        threads.elementwise(numpy.add, a, [1.0] * 6), a + 1
    )
    assert threads.elementwise(numpy.add, a, numpy.float32(1)).dtype == a.dtype
    assert split_small == []


@pytest.mark.parametrize(
    "shape,axis,keepdims",
    [
        ((6, 5, 4), (0, 2), False),
        ((6, 5, 4), (0, 2), True),
        ((6, 5, 4), (1,), False),
        ((8, 7), (0,), False),
        ((8, 7), (1,), True),
        ((9, 4, 3), None, False),
        ((9, 4, 3), None, True),
        ((50,), None, False),
    ],
)
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64, numpy.int16])
def test_reduce_sum_matches_numpy(shape, axis, keepdims, dtype, n_threads, split_small):
    x = _operands(numpy.random.default_rng(1), shape, dtype)
    expect = x.sum(axis=axis, keepdims=keepdims)
    n_threads(3)
    got = threads.reduce_sum(x, axis, keepdims)
    assert split_small, "the work was not split"
    assert numpy.asarray(got).dtype == expect.dtype
    assert numpy.shape(got) == numpy.shape(expect)
    if dtype == numpy.int16:
        numpy.testing.assert_array_equal(got, expect)
    else:  # summed in another order: the last bits may differ
        rtol = 1e-5 if dtype == numpy.float32 else 1e-12
        numpy.testing.assert_allclose(got, expect, rtol=rtol)


def test_one_thread_reduce_and_elementwise_do_not_split(n_threads, split_small):
    n_threads(1)
    x = numpy.ones((64, 64), numpy.float32)
    assert threads.reduce_sum(x, None) == 4096
    threads.elementwise(numpy.add, x, x)
    assert split_small == []


def test_one_blas_thread_holds_blas_at_one_and_restores(n_threads):
    n_threads(2)

    def blas_threads():
        infos = threadpoolctl.threadpool_info()
        return {i["num_threads"] for i in infos if i["user_api"] == "blas"}

    assert threads.blas_controller() is not None  # NumPy ships a BLAS
    before = blas_threads()
    with threads.one_blas_thread():
        assert blas_threads() == {1}
    assert blas_threads() == before


def test_one_blas_thread_leaves_libraries_at_one_alone(monkeypatch):
    # A library already at one thread is neither set nor reset; another at
    # four is held at one and restored.
    calls = []

    class Lib:
        def __init__(self, name, n):
            self.name, self.n = name, n

        def get_num_threads(self):
            return self.n

        def set_num_threads(self, n):
            calls.append((self.name, n))
            self.n = n

    class Ctl:
        lib_controllers = [Lib("one", 1), Lib("four", 4)]

    monkeypatch.setattr(threads, "blas_controller", lambda: Ctl)
    with threads.one_blas_thread():
        assert [lib.n for lib in Ctl.lib_controllers] == [1, 1]
    assert calls == [("four", 1), ("four", 4)]


class _StuckJob:
    """Stands in a worker's queue ahead of real jobs: holds the worker until
    released, as a worker whose core is busy elsewhere would be held."""

    def __init__(self):
        self.started = threading.Event()
        self.release = threading.Event()

    def claim(self):
        return 0

    def run(self, i):
        self.started.set()
        assert self.release.wait(10)


@pytest.fixture
def stuck_worker(n_threads):
    n_threads(2)
    threads.parallel_for(lambda i: None, 2)  # start the pool
    stuck = _StuckJob()
    threads._pool.queues[0].put(stuck)
    assert stuck.started.wait(10)
    yield stuck
    stuck.release.set()


def test_caller_takes_over_a_late_workers_tasks(stuck_worker):
    ran = []
    threads.parallel_for(lambda i: ran.append((i, threading.get_ident())), 5)
    # Nobody waited for the held worker: the caller ran every task.
    assert sorted(i for i, _ in ran) == [0, 1, 2, 3, 4]
    assert {t for _, t in ran} == {threading.get_ident()}
    stuck_worker.release.set()
    # The worker then finds its stale job done and takes part again.
    barrier = threading.Barrier(2, timeout=10)
    seen = []

    def task(i):
        barrier.wait()
        seen.append(threading.get_ident())

    threads.parallel_for(task, 2)
    assert len(set(seen)) == 2


def test_a_stale_job_keeps_nothing_alive(stuck_worker):
    class Payload:
        pass

    payload = Payload()
    ref = weakref.ref(payload)

    def make_task(obj):
        return lambda i: obj

    task = make_task(payload)
    threads.parallel_for(task, 3)  # its job waits in the held worker's queue
    del task, payload
    assert ref() is None


def test_worker_error_propagates(n_threads):
    n_threads(2)
    barrier = threading.Barrier(2, timeout=10)
    caller = threading.get_ident()
    where = {}

    def task(i):
        barrier.wait()  # both tasks at once: task 1 is the worker's
        where[i] = threading.get_ident()
        if i == 1:
            raise ValueError("task 1 failed")

    with pytest.raises(ValueError, match="task 1 failed"):
        threads.parallel_for(task, 2)
    assert where[0] == caller and where[1] != caller


def test_all_tasks_run_once_at_any_thread_count(n_threads):
    for n in (1, 2, 3, 5):
        n_threads(n)
        for n_tasks in (1, 2, 3, 7, 64):
            counts = [0] * n_tasks
            lock = threading.Lock()

            def task(i, counts=counts, lock=lock):
                with lock:
                    counts[i] += 1

            threads.parallel_for(task, n_tasks)
            assert counts == [1] * n_tasks


def _cpu_seconds(thread):
    return time.clock_gettime(time.pthread_getcpuclockid(thread.ident))


def test_idle_pool_uses_no_cpu(n_threads):
    # Workers block on their queues between jobs (no spinning): an idle
    # process with a started pool costs no CPU.
    n_threads(3)
    for _ in range(50):
        threads.parallel_for(lambda i: None, 3)
    workers = list(threads._pool.threads)
    before = [_cpu_seconds(t) for t in workers]
    time.sleep(0.3)
    used = [_cpu_seconds(t) - b for t, b in zip(workers, before)]
    assert max(used) < 0.01, used


def test_run_split_makes_several_ranges_per_thread(n_threads, monkeypatch):
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    n_threads(3)
    got = []
    big = threads.MIN_BYTES_PER_CHUNK * 1000
    threads.run_split(lambda a, b: got.append((a, b)), 100, big)
    assert sorted(got) == threads.split(100, 3 * threads.OVERSPLIT)
    # No range below MIN_BYTES_PER_CHUNK of work, but at least one per thread.
    got.clear()
    threads.run_split(lambda a, b: got.append((a, b)), 100, 3)
    assert sorted(got) == threads.split(100, 3)
    # Nor more than MAX_CHUNKS (each is a Python call under the GIL), unless
    # there are more threads than that.
    monkeypatch.setattr(threads, "MAX_CHUNKS", 5)
    got.clear()
    threads.run_split(lambda a, b: got.append((a, b)), 100, big)
    assert sorted(got) == threads.split(100, 5)
    monkeypatch.setattr(threads, "MAX_CHUNKS", 2)
    got.clear()
    threads.run_split(lambda a, b: got.append((a, b)), 100, big)
    assert sorted(got) == threads.split(100, 3)


def test_run_split_results_identical_at_1_and_3_threads(n_threads, monkeypatch):
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_CHUNK", 1)
    x = numpy.random.default_rng(2).standard_normal(1001).astype(numpy.float32)

    def compute():
        out = numpy.empty_like(x)

        def work(a, b):
            numpy.exp(numpy.sin(x[a:b]) * 3.0, out=out[a:b])

        threads.run_split(work, x.size, 1 << 30)
        return out

    n_threads(1)
    one = compute()
    n_threads(3)
    numpy.testing.assert_array_equal(compute(), one)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_no_task_starts_after_a_failure(n_threads, n):
    n_threads(n)
    ran = []

    def task(i):
        ran.append(i)
        if i == 0:
            raise RuntimeError("first task failed")

    with pytest.raises(RuntimeError, match="first task failed"):
        threads.parallel_for(task, 200)
    assert 0 in ran and len(ran) < 100
    out = []
    threads.parallel_for(out.append, 4)  # the pool still works
    assert sorted(out) == [0, 1, 2, 3]
