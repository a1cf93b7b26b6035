"""StandardUpdater: one batch, one loss, one optimizer step per update."""

from __future__ import annotations

import numpy as np
import pytest
from _training_helpers import TinyMLP, make_dataset

import kusari
import kusari.functions as F
from kusari import backend, iterators, optimizers
from kusari.dataset import concat_examples
from kusari.dataset import converter as converter_decorator
from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import updaters


def make_updater(batch_size=8, shuffle=False, **kwargs):
    model = TinyMLP()
    opt = optimizers.SGD(lr=0.1).setup(model)
    it = iterators.SerialIterator(make_dataset(), batch_size, shuffle=shuffle)
    return updaters.StandardUpdater(it, opt, **kwargs), model, opt


def test_epoch_bookkeeping_and_auto_new_epoch():
    updater, _, opt = make_updater(batch_size=16)
    assert (updater.iteration, updater.epoch, updater.epoch_detail) == (0, 0, 0.0)
    assert updater.previous_epoch_detail is None
    updater.update()
    updater.update()
    assert not updater.is_new_epoch and opt.epoch == 0
    updater.update()  # 48 >= 40: crosses the epoch
    assert updater.is_new_epoch and updater.epoch == 1 and opt.epoch == 1
    assert updater.epoch_detail == pytest.approx(48 / 40)
    assert opt.use_auto_new_epoch


def test_auto_new_epoch_off():
    updater, _, opt = make_updater(batch_size=40, auto_new_epoch=False)
    updater.update()
    assert opt.epoch == 0 and not opt.use_auto_new_epoch


def test_update_matches_manual_step():
    updater, model, _ = make_updater(batch_size=8)
    ref = TinyMLP()
    x, t = concat_examples(make_dataset()[:8])
    ref.cleargrads()
    ref(x, t).backward()
    updater.update()
    for (name, p), (_, q) in zip(model.namedparams(), ref.namedparams()):
        np.testing.assert_allclose(
            p.array, q.array - 0.1 * q.grad, rtol=1e-6, err_msg=name
        )


def test_loss_func_converter_and_dict_batches():
    seen = []

    def converter(batch, device=None):
        seen.append(device)
        x, t = concat_examples(batch)
        return {"x": x, "t": t}

    model = TinyMLP()
    opt = optimizers.SGD().setup(model)
    it = iterators.SerialIterator(make_dataset(), 4, shuffle=False)

    def loss_func(x, t):
        return F.softmax_cross_entropy(model.predict(x), t)

    updater = updaters.StandardUpdater(
        it, opt, converter=converter, loss_func=loss_func, device="@numpy"
    )
    updater.update()
    assert updater.iteration == 1 and len(seen) == 1
    assert updater.device is not None


def test_loss_scale_is_set_on_optimizers():
    updater, _, opt = make_updater(loss_scale=64.0)
    assert opt._loss_scale == 64.0
    updater.update()


def test_serialize_round_trip_with_shuffle_and_rng():
    np.random.seed(5)
    updater, model, _ = make_updater(batch_size=12, shuffle=True)
    for _ in range(5):
        updater.update()
    s = DictionarySerializer()
    updater.serialize(s)
    saved = {k: v.copy() for k, v in s.target.items()}  # the serializer aliases
    keys = set(saved)
    assert {
        "iteration",
        "iterator:main/order",
        "order_sampler:main/keys",
        "optimizer:main/t",
        "model:main/W1",
    } <= keys
    for _ in range(6):
        updater.update()  # crosses epochs: draws new orders from the RNG
    np.random.seed(99)  # a different global state, restored by loading
    fresh, fresh_model, _ = make_updater(batch_size=12, shuffle=True)
    fresh.serialize(NpzDeserializer(saved))
    assert fresh.iteration == 5
    for _ in range(6):
        fresh.update()
    for (n, p), (_, q) in zip(model.namedparams(), fresh_model.namedparams()):
        np.testing.assert_array_equal(p.array, q.array, err_msg=n)


def test_getters():
    updater, _, opt = make_updater()
    assert updater.get_optimizer("main") is opt
    assert updater.get_all_optimizers() == {"main": opt}
    assert updater.get_iterator("main") is not None


def test_serialize_asks_the_order_sampler_and_keeps_keys():
    calls = []

    class Recording(iterators.ShuffleOrderSampler):
        def serialize(self, serializer):
            calls.append(serializer)
            super().serialize(serializer)

    model = TinyMLP()
    opt = optimizers.SGD(lr=0.1).setup(model)
    it = iterators.SerialIterator(
        make_dataset(),
        12,
        shuffle=None,
        order_sampler=Recording(np.random.RandomState(0)),
    )
    updater = updaters.StandardUpdater(it, opt)
    s = DictionarySerializer()
    updater.serialize(s)
    assert len(calls) == 1 and calls[0].path == "order_sampler:main/"
    assert {
        "order_sampler:main/keys",
        "order_sampler:main/pos",
        "order_sampler:main/has_gauss",
        "order_sampler:main/cached_gaussian",
    } <= set(s.target)
    # Without a sampler (shuffle=False) nothing is written under its key.
    plain, _, _ = make_updater(shuffle=False)
    s = DictionarySerializer()
    plain.serialize(s)
    assert not any(k.startswith("order_sampler:") for k in s.target)


def test_exact_resume_with_a_generator_backed_sampler():
    # A numpy Generator's state is saved too (through the sampler).
    def build(seed):
        model = TinyMLP()
        opt = optimizers.SGD(lr=0.1).setup(model)
        sampler = iterators.ShuffleOrderSampler(np.random.default_rng(seed))
        it = iterators.SerialIterator(
            make_dataset(), 12, shuffle=None, order_sampler=sampler
        )
        return updaters.StandardUpdater(it, opt), model

    updater, model = build(1)
    for _ in range(5):
        updater.update()
    s = DictionarySerializer()
    updater.serialize(s)
    saved = {k: v.copy() for k, v in s.target.items()}
    for _ in range(7):
        updater.update()  # crosses epochs: draws new orders
    fresh, fresh_model = build(99)  # a different state, restored by loading
    fresh.serialize(NpzDeserializer(saved))
    for _ in range(7):
        fresh.update()
    for (n, p), (_, q) in zip(model.namedparams(), fresh_model.namedparams()):
        np.testing.assert_array_equal(p.array, q.array, err_msg=n)


def test_dicts_of_iterators_and_optimizers_use_the_main_ones():
    main_model, other_model = TinyMLP(1), TinyMLP(2)
    main_opt = optimizers.SGD(lr=0.1).setup(main_model)
    other_opt = optimizers.SGD(lr=0.1).setup(other_model)
    main_it = iterators.SerialIterator(make_dataset(), 8, shuffle=False)
    other_it = iterators.SerialIterator(make_dataset(), 8, shuffle=False)
    updater = updaters.StandardUpdater(
        {"main": main_it, "other": other_it}, {"main": main_opt, "other": other_opt}
    )
    before = other_model.W1.array.copy()
    updater.update()
    assert main_opt.t == 1 and other_opt.t == 0
    assert main_it.current_position == 8 and other_it.current_position == 0
    np.testing.assert_array_equal(other_model.W1.array, before)
    assert updater.get_all_optimizers() == {"main": main_opt, "other": other_opt}
    s = DictionarySerializer()
    updater.serialize(s)
    assert {
        "optimizer:other/t",
        "model:other/W1",
        "iterator:other/current_position",
        "model:main/W1",
    } <= set(s.target)


def test_finalize_finalizes_every_iterator():
    finalized = []

    class Recording(iterators.SerialIterator):
        def finalize(self):
            finalized.append(self)

    model = TinyMLP()
    opt = optimizers.SGD().setup(model)
    its = {name: Recording(make_dataset(), 4) for name in ("main", "extra")}
    updaters.StandardUpdater(its, opt).finalize()
    assert sorted(id(i) for i in finalized) == sorted(id(i) for i in its.values())


def test_input_device_is_passed_to_the_converter():
    seen = []

    def converter(batch, device=None):
        seen.append(device)
        return concat_examples(batch)

    model = TinyMLP()
    opt = optimizers.SGD().setup(model)
    it = iterators.SerialIterator(make_dataset(), 4, shuffle=False)
    updater = updaters.StandardUpdater(
        it, opt, converter=converter, input_device="@numpy"
    )
    updater.update()
    assert updater.device is None
    assert updater.input_device == backend.CpuDevice()
    # A plain function is an old-style converter: it gets Chainer's int
    # (-1 for the CPU); a @converter() one gets the Device itself.
    assert seen == [-1]

    @converter_decorator()
    def modern(batch, device):
        seen.append(device)
        return concat_examples(batch)

    updater = updaters.StandardUpdater(it, opt, converter=modern, input_device=-1)
    updater.update()
    assert seen[1] is updater.input_device


def test_a_single_array_batch_is_passed_as_one_argument():
    data = [np.full(3, i, dtype=np.float32) for i in range(8)]
    got = []

    def loss_func(x):
        got.append(x.shape)
        return F.sum(x * model.w)

    model = kusari.Chain()
    with model.init_scope():
        model.w = kusari.Parameter(np.ones(3, dtype=np.float32))
    opt = optimizers.SGD().setup(model)
    it = iterators.SerialIterator(data, 4, shuffle=False)
    updaters.StandardUpdater(it, opt, loss_func=loss_func).update()
    assert got == [(4, 3)]


def test_repr_names_iteration_iterators_and_optimizers():
    updater, _, _ = make_updater()
    updater.update()
    assert repr(updater) == (
        "StandardUpdater(iteration=1, iterators=['main'], optimizers=['main'])"
    )
