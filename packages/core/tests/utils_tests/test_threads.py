"""The intra-op thread pool."""

from __future__ import annotations

import os
import threading

import pytest

from kusari.utils import threads


@pytest.fixture
def n_threads():
    old = threads.get_num_threads()
    try:
        import threadpoolctl

        blas = threadpoolctl.threadpool_limits(limits=None, user_api="blas")
    except ImportError:
        blas = None
    yield threads.set_num_threads
    threads.set_num_threads(old)
    if blas is not None:  # BLAS back to what the environment chose
        blas.restore_original_limits()


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
    threadpoolctl = pytest.importorskip("threadpoolctl")
    import numpy  # noqa: F401  (loads its BLAS)

    n_threads(1)
    infos = [i for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]
    assert infos and all(i["num_threads"] == 1 for i in infos)


def test_top_level_names_are_the_pool_functions():
    import kusari

    assert kusari.set_num_threads is threads.set_num_threads
    assert kusari.get_num_threads is threads.get_num_threads
