"""Prefetching iterators resume exactly where a snapshot left them.

A snapshot saves the iterator and its order sampler's random state (as
StandardUpdater does). Resuming from it in a fresh iterator must give the
very batches the uninterrupted iterator gives, in this epoch and the later
ones, wherever the snapshot falls relative to an epoch boundary.
"""

import faulthandler

import numpy as np
import pytest

from kusari.iterators import MultiprocessIterator, MultithreadIterator, SerialIterator
from kusari.serializers import DictionarySerializer, NpzDeserializer

N, BATCH, REST = 10, 3, 9  # epochs end mid-batch; REST spans three epochs


@pytest.fixture(autouse=True)
def _hang_guard():
    # A stuck pool must fail the run (with tracebacks), not hang it.
    faulthandler.dump_traceback_later(120, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


ITERATORS = [
    pytest.param(
        lambda: MultiprocessIterator(
            list(range(N)), BATCH, shuffle=True, n_processes=2, n_prefetch=1
        ),
        id="mp-prefetch1",
    ),
    pytest.param(
        lambda: MultiprocessIterator(
            list(range(N)), BATCH, shuffle=True, n_processes=2, n_prefetch=2
        ),
        id="mp-prefetch2",
    ),
    pytest.param(
        lambda: MultithreadIterator(list(range(N)), BATCH, shuffle=True, n_threads=2),
        id="mt",
    ),
]


def _save(it):
    s = DictionarySerializer()
    it.serialize(s["iterator"])
    it.order_sampler.serialize(s["order_sampler"])
    return s.target


def _load(it, saved, with_sampler=True):
    d = NpzDeserializer(saved)
    it.serialize(d["iterator"])
    if with_sampler:
        it.order_sampler.serialize(d["order_sampler"])


def _position(it):
    return (it.epoch, it.current_position, it.is_new_epoch, it.previous_epoch_detail)


@pytest.mark.parametrize("make", ITERATORS)
@pytest.mark.parametrize("stop", range(1, 8))
def test_resume_gives_the_uninterrupted_batches(make, stop):
    np.random.seed(0)  # shuffle=True draws from NumPy's global RandomState
    it = make()
    try:
        for _ in range(stop):
            next(it)
        saved = _save(it)
        position = _position(it)
        expected = [next(it) for _ in range(REST)]
    finally:
        it.finalize()

    np.random.seed(0)
    serial = SerialIterator(list(range(N)), BATCH, shuffle=True)
    assert [next(serial) for _ in range(stop + REST)][stop:] == expected

    np.random.seed(123)  # a different first order, already being prefetched
    resumed = make()
    try:
        next(resumed)
        _load(resumed, saved)
        assert _position(resumed) == position
        assert [next(resumed) for _ in range(REST)] == expected
    finally:
        resumed.finalize()


@pytest.mark.parametrize("make", ITERATORS)
def test_resume_without_sampler_state_keeps_the_epoch_order(make):
    # Chainer's semantics: the iterator alone restores the current epoch.
    np.random.seed(0)
    it = make()
    try:
        for _ in range(2):  # 6 of 10 examples seen; 4 left in this epoch
            next(it)
        saved = _save(it)
        expected = next(it) + next(it)[:1]
    finally:
        it.finalize()
    np.random.seed(5)
    resumed = make()
    try:
        _load(resumed, saved, with_sampler=False)
        assert next(resumed) + next(resumed)[:1] == expected
        assert resumed.is_new_epoch and resumed.epoch == 1
    finally:
        resumed.finalize()
