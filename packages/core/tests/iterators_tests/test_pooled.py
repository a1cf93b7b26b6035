"""copy.copy of the pooled iterators (multithread and multiprocess)."""

import copy

import numpy as np
import pytest

from kusari.iterators import MultiprocessIterator, MultithreadIterator, SerialIterator


def _make(kind, dataset, batch_size, **kwargs):
    if kind == "thread":
        return MultithreadIterator(dataset, batch_size, n_threads=2, **kwargs)
    return MultiprocessIterator(dataset, batch_size, n_processes=1, **kwargs)


def _drain(it):
    out = []
    while True:
        try:
            out.append(it.next())
        except StopIteration:
            return out


@pytest.mark.parametrize("kind", ["thread", "process"])
def test_copy_before_first_batch_replays_the_epoch(kind):
    it = _make(kind, list(range(7)), 3, repeat=False, shuffle=False)
    twin = copy.copy(it)
    try:
        assert _drain(it) == [[0, 1, 2], [3, 4, 5], [6]]
        it.finalize()  # must not stop the copy's workers
        assert _drain(twin) == [[0, 1, 2], [3, 4, 5], [6]]
    finally:
        it.finalize()
        twin.finalize()


@pytest.mark.parametrize("kind", ["thread", "process"])
def test_copy_mid_epoch_continues_from_the_published_position(kind):
    # The original has already prefetched its next batch; the copy must
    # still return that batch (not skip it), with the same epoch counters.
    order = np.random.RandomState(3).permutation(10)
    reference = SerialIterator(list(range(10)), 4, order_sampler=lambda o, _: order)
    it = _make(kind, list(range(10)), 4, order_sampler=lambda o, _: order)
    try:
        assert it.next() == reference.next()
        twin = copy.copy(it)
        assert twin._pool is None and not twin._pending
        assert twin.epoch_detail == it.epoch_detail == 0.4
        assert twin.previous_epoch_detail == it.previous_epoch_detail == 0.0
        expected = [reference.next() for _ in range(3)]
        assert [twin.next() for _ in range(3)] == expected
        assert [it.next() for _ in range(3)] == expected
        assert twin.epoch == it.epoch == 1
    finally:
        it.finalize()
        twin.finalize()


def test_pickling_is_still_refused():
    it = MultithreadIterator([1, 2], 1)
    with pytest.raises(TypeError, match="MultithreadIterator cannot be pickled"):
        copy.deepcopy(it)
