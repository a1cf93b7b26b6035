import gc
import multiprocessing
import os
import signal
import threading
import time

import numpy as np
import pytest

from kusari.datasets import TupleDataset
from kusari.iterators import (
    MultiprocessIterator,
    MultithreadIterator,
    SerialIterator,
    ShuffleOrderSampler,
)
from kusari.iterators._pooled import TimeoutWarning
from kusari.serializers import DictionarySerializer, NpzDeserializer


def _dataset(n=13):
    return TupleDataset(np.arange(n), np.arange(n) * 10)


def _sampler(seed=0):
    return ShuffleOrderSampler(np.random.RandomState(seed))


def _children_gone(timeout=20.0):
    deadline = time.monotonic() + timeout
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    return not multiprocessing.active_children()


class Failing:
    """Raises for one index (in whichever process fetches it)."""

    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 4:
            raise ValueError("bad example 4")
        return i


class DiesInWorker:
    def __init__(self):
        self.parent = os.getpid()

    def __len__(self):
        return 4

    def __getitem__(self, i):
        if os.getpid() != self.parent and i == 2:
            os._exit(3)  # simulate a crash (segfault, OOM kill) of a worker
        return i


class Slow:
    def __init__(self, delay):
        self.delay = delay

    def __len__(self):
        return 4

    def __getitem__(self, i):
        time.sleep(self.delay)
        return i


ITERATORS = [
    pytest.param(
        lambda d, b, **kw: MultiprocessIterator(d, b, n_processes=2, **kw), id="mp"
    ),
    pytest.param(
        lambda d, b, **kw: MultithreadIterator(d, b, n_threads=2, **kw), id="mt"
    ),
]


@pytest.mark.parametrize("make", ITERATORS)
@pytest.mark.parametrize("repeat", [True, False])
def test_same_batches_as_serial_iterator(make, repeat):
    serial = SerialIterator(_dataset(), 4, repeat=repeat, order_sampler=_sampler())
    with make(_dataset(), 4, repeat=repeat, order_sampler=_sampler()) as it:
        for _ in range(8):
            try:
                expected = next(serial)
            except StopIteration:
                with pytest.raises(StopIteration):
                    next(it)
                break
            batch = next(it)
            assert [(int(a), int(b)) for a, b in batch] == [
                (int(a), int(b)) for a, b in expected
            ]
            assert (it.epoch, it.is_new_epoch, it.current_position) == (
                serial.epoch,
                serial.is_new_epoch,
                serial.current_position,
            )
            assert it.epoch_detail == pytest.approx(serial.epoch_detail)
            assert it.previous_epoch_detail == serial.previous_epoch_detail
    assert _children_gone()


@pytest.mark.parametrize("n_prefetch", [1, 3])
def test_resume_discards_prefetched_batches(n_prefetch):
    with MultiprocessIterator(
        _dataset(), 3, n_processes=2, n_prefetch=n_prefetch, order_sampler=_sampler(1)
    ) as it:
        for _ in range(3):
            next(it)
        s = DictionarySerializer()
        it.serialize(s)
        expected = [next(it) for _ in range(1)]  # stays inside epoch 0
    with MultiprocessIterator(
        _dataset(), 3, n_processes=2, n_prefetch=n_prefetch, order_sampler=_sampler(7)
    ) as resumed:
        next(resumed)  # prefetching runs ahead; loading must reset it
        resumed.serialize(NpzDeserializer(s.target))
        assert resumed.current_position == 9 and resumed.epoch == 0
        assert [next(resumed) for _ in range(1)] == expected


def test_spawn_start_method():
    with MultiprocessIterator(
        _dataset(6), 4, shuffle=False, n_processes=2, mp_context="spawn"
    ) as it:
        assert [int(x) for x, _ in next(it)] == [0, 1, 2, 3]
        assert [int(x) for x, _ in next(it)] == [4, 5, 0, 1]
    assert _children_gone()


@pytest.mark.parametrize("make", ITERATORS)
def test_dataset_exception_propagates(make):
    with make(Failing(), 3, shuffle=False) as it:
        assert next(it) == [0, 1, 2]
        with pytest.raises(ValueError, match="bad example 4"):
            next(it)
    assert _children_gone()


def test_dead_worker_is_reported_not_hung():
    it = MultiprocessIterator(DiesInWorker(), 4, shuffle=False, n_processes=2)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="worker process died"):
        next(it)
    assert time.monotonic() - start < 10
    assert it._pool is None
    assert _children_gone()


def test_keyboard_interrupt_shuts_workers_down():
    # The examples take far longer than the interrupt's delay, so the
    # interrupt lands inside next() however slowly a busy machine starts the
    # workers; finalize() in the end keeps a failure from leaking workers into
    # the next tests.
    # A process started in the background by a shell inherits SIGINT ignored;
    # Ctrl-C is what is tested, so use Python's own handler here.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    it = MultiprocessIterator(Slow(30.0), 4, shuffle=False, n_processes=2)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            next(it)
        assert it._pool is None
        assert _children_gone()
    finally:
        timer.cancel()
        it.finalize()
        signal.signal(signal.SIGINT, previous)


def test_finalize_then_reuse_and_gc():
    it = MultiprocessIterator(_dataset(), 2, shuffle=False, n_processes=2)
    next(it)
    it.finalize()
    assert _children_gone()
    assert [int(x) for x, _ in next(it)] == [2, 3]  # restarts from its state
    del it
    gc.collect()
    assert _children_gone()


def test_slow_dataset_warns():
    with MultiprocessIterator(
        Slow(0.8), 1, shuffle=False, n_processes=1, dataset_timeout=0.5
    ) as it:
        with pytest.warns(TimeoutWarning, match="not loaded after 0.5 s"):
            next(it)


def test_timeout_shorter_than_the_polling_tick_still_warns():
    # A 0.3 s batch against a 0.1 s timeout: it arrives within the usual
    # 0.5 s poll, but is over the timeout all the same. Chainer names the
    # warning as an attribute of the class.
    assert MultiprocessIterator.TimeoutWarning is TimeoutWarning
    with MultiprocessIterator(
        Slow(0.3), 1, shuffle=False, n_processes=1, dataset_timeout=0.1
    ) as it:
        with pytest.warns(MultiprocessIterator.TimeoutWarning):
            next(it)


@pytest.mark.parametrize(
    "kwargs,match",
    [({"n_processes": 0}, "n_processes"), ({"n_prefetch": 0}, "n_prefetch")],
)
def test_argument_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        MultiprocessIterator([1, 2], 1, **kwargs)
    with pytest.raises(ValueError, match="n_threads"):
        MultithreadIterator([1, 2], 1, n_threads=0)


def test_not_picklable():
    import pickle

    it = MultithreadIterator([1, 2], 1)
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(it)
    it.finalize()


def test_maxtasksperchild():
    with MultiprocessIterator(
        _dataset(8), 4, shuffle=False, n_processes=1, maxtasksperchild=1
    ) as it:
        batches = [next(it) for _ in range(3)]
    assert [int(x) for x, _ in batches[2]] == [0, 1, 2, 3]


def test_dali_iterator_is_unsupported():
    from kusari.iterators import DaliIterator

    with pytest.raises(ImportError, match="DALI is not supported"):
        DaliIterator(None, 32)


def test_spawn_with_unpicklable_dataset_explains():
    from kusari.datasets import TransformDataset

    dataset = TransformDataset([1, 2, 3], lambda x: x)
    it = MultiprocessIterator(dataset, 2, n_processes=1, mp_context="spawn")
    with pytest.raises(TypeError, match="must be picklable"):
        next(it)
    it.finalize()
    assert _children_gone()


SCRIPT = """
import multiprocessing
import numpy as np
from kusari.datasets import TupleDataset
from kusari.iterators import MultiprocessIterator

if __name__ == "__main__":
    multiprocessing.set_start_method({method!r}, force=True)
    it = MultiprocessIterator(
        TupleDataset(np.arange(6), np.arange(6)), 4, shuffle=False, n_processes=2,
        n_prefetch=2,
    )
    print([int(x) for x, _ in next(it)])
    # No finalize(): the workers must still be gone when the interpreter exits.
"""


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_global_start_method_and_exit_without_finalize(tmp_path, method):
    import subprocess
    import sys

    script = tmp_path / "run.py"
    script.write_text(SCRIPT.format(method=method))
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[0, 1, 2, 3]"


class _StuckPool:
    """A pool whose terminate() never returns (CPython's rare hang)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self._pool = [_FakeWorker(), _FakeWorker(exitcode=0)]
        self._cache: dict = {}

    def close(self) -> None:
        pass

    def terminate(self) -> None:
        self.release.wait()

    def join(self) -> None:
        pass


class _FakeWorker:
    def __init__(self, exitcode=None) -> None:
        self.exitcode = exitcode
        self.killed = False

    def kill(self) -> None:
        self.killed = True


def test_shutdown_of_a_stuck_pool_is_bounded_and_kills_the_workers(monkeypatch):
    from kusari.iterators import _pooled

    monkeypatch.setattr(_pooled, "SHUTDOWN_TIMEOUT", 0.2)
    pool = _StuckPool()
    start = time.monotonic()
    with pytest.warns(RuntimeWarning, match="did not stop within 0.2 s"):
        _pooled._shutdown(pool)
    assert time.monotonic() - start < 5
    assert [w.killed for w in pool._pool] == [True, False]  # only the live one
    pool.release.set()  # let the daemon thread finish


class _DrainingPool:
    """Records when terminate comes relative to the tasks in flight."""

    def __init__(self) -> None:
        self._pool: list = []
        self._cache = {1: "batch in flight"}
        self.calls: list = []
        timer = threading.Timer(0.1, self._cache.clear)
        timer.start()

    def close(self) -> None:
        self.calls.append("close")

    def terminate(self) -> None:
        self.calls.append(("terminate", len(self._cache)))

    def join(self) -> None:
        self.calls.append("join")


def test_shutdown_lets_batches_in_flight_finish_before_killing_workers():
    # A worker killed while sending a result would hold the result queue's
    # lock for ever: terminate only once nothing is in flight.
    from kusari.iterators import _pooled

    pool = _DrainingPool()
    _pooled._shutdown(pool)
    assert pool.calls == ["close", ("terminate", 0), "join"]
