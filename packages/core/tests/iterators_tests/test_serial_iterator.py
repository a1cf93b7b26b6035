import copy

import numpy as np
import pytest

from kusari.iterators import OrderSampler, SerialIterator, ShuffleOrderSampler
from kusari.serializers import DictionarySerializer, NpzDeserializer


def test_no_shuffle_repeat_wraps_like_chainer():
    it = SerialIterator(list(range(5)), 2, shuffle=False)
    got = [(next(it), it.epoch, it.is_new_epoch, it.epoch_detail) for _ in range(4)]
    assert got == [
        ([0, 1], 0, False, 0.4),
        ([2, 3], 0, False, 0.8),
        ([4, 0], 1, True, 1.2),
        ([1, 2], 1, False, 1.6),
    ]
    assert it.previous_epoch_detail == pytest.approx(1.2)
    assert it.current_position == 3


def test_no_repeat_stops():
    it = SerialIterator(list(range(5)), 2, repeat=False, shuffle=False)
    assert it.previous_epoch_detail is None
    assert list(it) == [[0, 1], [2, 3], [4]]
    assert it.epoch == 1 and it.is_new_epoch
    with pytest.raises(StopIteration):
        it.next()
    it.reset()
    assert it.epoch == 0 and next(it) == [0, 1]


def test_shuffle_visits_every_example_once_per_epoch():
    np.random.seed(0)
    it = SerialIterator(list(range(10)), 3)
    epoch0 = [x for _ in range(3) for x in next(it)]
    last = next(it)  # one from epoch 0, two from epoch 1
    assert sorted(epoch0 + last[:1]) == list(range(10))
    assert it.epoch == 1 and it.repeat


def test_custom_order_sampler():
    class Reverse(OrderSampler):
        def __call__(self, current_order, current_position):
            return np.arange(len(current_order))[::-1]

    it = SerialIterator(list("abcd"), 3, order_sampler=Reverse())
    assert next(it) == ["d", "c", "b"]
    assert next(it) == ["a", "d", "c"]


def test_bad_order_sampler_length():
    lengths = iter([4, 3])
    it = SerialIterator(
        list(range(4)), 4, order_sampler=lambda o, p: np.arange(next(lengths))
    )
    # Chainer's words first, then how many indices came.
    with pytest.raises(
        ValueError, match="size of order does not match the size of the previous"
    ):
        next(it)


def test_order_length_sets_the_epoch_length():
    # An order sampler may repeat examples: the epoch is one pass over the
    # order, here each of the 3 examples twice.
    it = SerialIterator(
        [10, 20, 30], 2, order_sampler=lambda o, p: np.repeat(np.arange(3), 2)
    )
    batches = [next(it) for _ in range(3)]
    assert sorted(sum(batches, [])) == [10, 10, 20, 20, 30, 30]
    assert it.epoch == 1 and it.is_new_epoch
    assert it.epoch_detail == pytest.approx(1.0)
    assert it.previous_epoch_detail == pytest.approx(4 / 6)


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"batch_size": 0}, ValueError, "batch_size must be a positive"),
        (
            {"shuffle": True, "order_sampler": ShuffleOrderSampler()},
            ValueError,
            "`shuffle` is not `None` and a custom `order_sampler` is set",
        ),
    ],
)
def test_argument_errors(kwargs, error, match):
    args = {"batch_size": 2, **kwargs}
    with pytest.raises(error, match=match):
        SerialIterator([1, 2, 3], **args)


def test_dataset_type_error():
    with pytest.raises(TypeError, match="len"):
        SerialIterator(5, 2)


def _save(it):
    s = DictionarySerializer()
    it.serialize(s)
    return s.target


@pytest.mark.parametrize("shuffle", [True, False])
def test_resume_continues_exactly(shuffle):
    data = list(range(11))
    sampler = ShuffleOrderSampler(np.random.RandomState(1)) if shuffle else None
    it = SerialIterator(
        data, 4, shuffle=None if shuffle else False, order_sampler=sampler
    )
    for _ in range(4):  # into the second epoch
        next(it)
    state = _save(it)
    expected_keys = {
        "current_position",
        "epoch",
        "is_new_epoch",
        "previous_epoch_detail",
    }
    assert set(state) == expected_keys | ({"order"} if shuffle else set())
    sampler_copy = copy.deepcopy(sampler)
    rest = [next(it) for _ in range(5)]

    # A fresh iterator (different random order) picks up the saved order.
    fresh = ShuffleOrderSampler(np.random.RandomState(99)) if shuffle else None
    resumed = SerialIterator(
        data, 4, shuffle=None if shuffle else False, order_sampler=fresh
    )
    resumed.serialize(NpzDeserializer(state))
    assert resumed.epoch == 1 and resumed.current_position == 5
    assert resumed.previous_epoch_detail == pytest.approx(1 + 1 / 11)
    assert next(resumed) == rest[0]  # the rest of this epoch is identical

    # With the sampler's random state restored too, every later epoch matches.
    again = SerialIterator(data, 4, shuffle=None if shuffle else False)
    again.order_sampler = sampler_copy  # set after __init__ drew its first order
    again.serialize(NpzDeserializer(state))
    assert [next(again) for _ in range(5)] == rest


def test_resume_from_old_snapshot_without_previous_epoch_detail():
    it = SerialIterator(list(range(10)), 4, shuffle=False)
    next(it)
    next(it)
    state = _save(it)
    del state["previous_epoch_detail"]
    resumed = SerialIterator(list(range(10)), 4, shuffle=False)
    resumed.serialize(NpzDeserializer(state))
    assert resumed.previous_epoch_detail == pytest.approx(0.4)


def test_resume_with_old_order_key():
    it = SerialIterator(list(range(6)), 2, order_sampler=ShuffleOrderSampler())
    state = _save(it)
    state["_order"] = state.pop("order")
    resumed = SerialIterator(list(range(6)), 2)
    resumed.serialize(NpzDeserializer(state))
    assert next(resumed) == next(it)


def test_attributes_are_settable_and_repr():
    it = SerialIterator(list(range(4)), 2, shuffle=False)
    it.current_position, it.epoch, it.is_new_epoch = 2, 3, True
    assert next(it) == [2, 3] and it.epoch == 4
    assert "batch_size=2" in repr(it)
