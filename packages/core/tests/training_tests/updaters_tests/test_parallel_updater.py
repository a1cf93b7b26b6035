"""ParallelUpdater: one batch split over model copies, gradients summed."""

from __future__ import annotations

import numpy as np
import pytest
from _training_helpers import TinyMLP, make_dataset

from kusari import iterators, optimizers, training
from kusari.dataset import concat_examples
from kusari.training import updaters


def test_parallel_updater_on_cpu_sums_sub_batch_grads():
    model = TinyMLP()
    opt = optimizers.SGD(lr=0.1).setup(model)
    it = iterators.SerialIterator(make_dataset(), 8, shuffle=False)
    updater = updaters.ParallelUpdater(
        it, opt, devices={"main": "@numpy", "second": "@numpy"}
    )
    ref = TinyMLP()
    batch = make_dataset()[:8]
    ref.cleargrads()
    for sub in (batch[0::2], batch[1::2]):
        ref(*concat_examples(sub)).backward()
    updater.update()
    for (n, p), (_, q) in zip(model.namedparams(), ref.namedparams()):
        np.testing.assert_allclose(
            p.array, q.array - 0.1 * q.grad, rtol=1e-5, atol=1e-7, err_msg=n
        )
    second = updater._models["second"]
    np.testing.assert_array_equal(second.W1.array, model.W1.array)
    with pytest.raises(ValueError):
        updaters.ParallelUpdater(it, opt)


def test_parallel_updater_in_trainer_registers_observers(tmp_path):
    model = TinyMLP()
    opt = optimizers.SGD(lr=0.1).setup(model)
    it = iterators.SerialIterator(make_dataset(), 8, shuffle=False)
    updater = updaters.ParallelUpdater(
        it, opt, devices={"main": "@numpy", "second": "@numpy"}
    )
    trainer = training.Trainer(updater, (2, "iteration"), out=str(tmp_path))
    seen = []
    trainer.extend(lambda t: seen.append(sorted(t.observation)), name="spy")
    trainer.run()
    assert "main/loss" in seen[-1] and "second/loss" in seen[-1]


def _main_setup():
    model = TinyMLP()
    opt = optimizers.SGD(lr=0.1).setup(model)
    it = iterators.SerialIterator(make_dataset(), 8, shuffle=False)
    return model, opt, it


def test_main_key_is_required():
    _, opt, it = _main_setup()
    with pytest.raises(KeyError, match="main"):
        updaters.ParallelUpdater(it, opt, devices={"second": "@numpy"})
    with pytest.raises(KeyError, match="main"):
        updaters.ParallelUpdater(it, opt, models={"second": TinyMLP()})


def test_given_models_are_used_and_kept_in_sync():
    model, opt, it = _main_setup()
    second = TinyMLP(seed=5)  # different start: overwritten after the update
    updater = updaters.ParallelUpdater(
        it, opt, models={"main": model, "second": second}
    )
    updater.update()
    for (n, p), (_, q) in zip(model.namedparams(), second.namedparams()):
        np.testing.assert_array_equal(p.array, q.array, err_msg=n)
    assert updater.iteration == 1 and opt.t == 1


def test_loss_func_replaces_the_models():
    model, opt, it = _main_setup()
    calls = []

    def loss_func(x, t):
        calls.append(len(x))
        return model(x, t)

    updater = updaters.ParallelUpdater(
        it, opt, devices={"main": "@numpy", "second": "@numpy"}, loss_func=loss_func
    )
    updater.update()
    assert calls == [4, 4]
