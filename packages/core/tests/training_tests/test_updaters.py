"""StandardUpdater and ParallelUpdater."""

from __future__ import annotations

import numpy as np
import pytest
from _training_helpers import TinyMLP, make_dataset

import kusari
import kusari.functions as F
from kusari import iterators, optimizers, training
from kusari.dataset import concat_examples
from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import updater as updater_compat
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
        np.testing.assert_allclose(p.array, q.array - 0.1 * q.grad, rtol=1e-6,
                                   err_msg=name)


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

    updater = updaters.StandardUpdater(it, opt, converter=converter,
                                       loss_func=loss_func, device="@numpy")
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
    assert {"iteration", "iterator:main/order", "order_sampler:main/keys",
            "optimizer:main/t", "model:main/W1"} <= keys
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


def test_getters_and_compat_module():
    updater, _, opt = make_updater()
    assert updater.get_optimizer("main") is opt
    assert updater.get_all_optimizers() == {"main": opt}
    assert updater.get_iterator("main") is not None
    assert updater_compat.StandardUpdater is updaters.StandardUpdater
    assert training.Updater is updater_compat.Updater
    assert not updaters.MultiprocessParallelUpdater.available()
    with pytest.raises(RuntimeError):
        updaters.MultiprocessParallelUpdater()


def test_parallel_updater_on_cpu_sums_sub_batch_grads():
    model = TinyMLP()
    opt = optimizers.SGD(lr=0.1).setup(model)
    it = iterators.SerialIterator(make_dataset(), 8, shuffle=False)
    updater = updaters.ParallelUpdater(
        it, opt, devices={"main": "@numpy", "second": "@numpy"})
    ref = TinyMLP()
    batch = make_dataset()[:8]
    ref.cleargrads()
    for sub in (batch[0::2], batch[1::2]):
        ref(*concat_examples(sub)).backward()
    updater.update()
    for (n, p), (_, q) in zip(model.namedparams(), ref.namedparams()):
        np.testing.assert_allclose(p.array, q.array - 0.1 * q.grad, rtol=1e-5,
                                   atol=1e-7, err_msg=n)
    second = updater._models["second"]
    np.testing.assert_array_equal(second.W1.array, model.W1.array)
    with pytest.raises(ValueError):
        updaters.ParallelUpdater(it, opt)


def test_parallel_updater_in_trainer_registers_observers(tmp_path):
    model = TinyMLP()
    opt = optimizers.SGD(lr=0.1).setup(model)
    it = iterators.SerialIterator(make_dataset(), 8, shuffle=False)
    updater = updaters.ParallelUpdater(
        it, opt, devices={"main": "@numpy", "second": "@numpy"})
    trainer = training.Trainer(updater, (2, "iteration"), out=str(tmp_path))
    seen = []
    trainer.extend(lambda t: seen.append(sorted(t.observation)), name="spy")
    trainer.run()
    assert "main/loss" in seen[-1] and "second/loss" in seen[-1]


def test_link_without_params_is_fine():
    opt = optimizers.SGD().setup(kusari.Chain())
    opt.update()
    assert opt.t == 1


def test_serialize_asks_the_order_sampler_and_keeps_keys():
    calls = []

    class Recording(iterators.ShuffleOrderSampler):
        def serialize(self, serializer):
            calls.append(serializer)
            super().serialize(serializer)

    model = TinyMLP()
    opt = optimizers.SGD(lr=0.1).setup(model)
    it = iterators.SerialIterator(make_dataset(), 12, shuffle=None,
                                  order_sampler=Recording(np.random.RandomState(0)))
    updater = updaters.StandardUpdater(it, opt)
    s = DictionarySerializer()
    updater.serialize(s)
    assert len(calls) == 1 and calls[0].path == "order_sampler:main/"
    assert {"order_sampler:main/keys", "order_sampler:main/pos",
            "order_sampler:main/has_gauss",
            "order_sampler:main/cached_gaussian"} <= set(s.target)
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
        it = iterators.SerialIterator(make_dataset(), 12, shuffle=None,
                                      order_sampler=sampler)
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
