"""observe_value and observe_lr."""

from __future__ import annotations

from _training_helpers import mock_trainer

from kusari import optimizers, training
from kusari.training import extensions


def test_observe_value_and_lr(tmp_path):
    opt = optimizers.MomentumSGD(lr=0.25)
    trainer = mock_trainer(stop=(2, "iteration"), out=str(tmp_path))
    opt.setup(trainer.updater.optimizer.target)
    trainer.updater.optimizer = opt
    got = []
    trainer.extend(extensions.observe_lr(), trigger=(1, "iteration"))
    trainer.extend(
        extensions.observe_value("it", lambda t: t.updater.iteration),
        trigger=(1, "iteration"),
    )
    trainer.extend(lambda tr: got.append(dict(tr.observation)), name="spy")
    trainer.run()
    assert got == [{"lr": 0.25, "it": 1}, {"lr": 0.25, "it": 2}]


def test_defaults_each_epoch_before_the_readers(tmp_path):
    ext = extensions.observe_value("k", lambda t: 1)
    assert ext.trigger == (1, "epoch")
    assert ext.priority == training.PRIORITY_WRITER
    trainer = mock_trainer(stop=(20, "iteration"), out=str(tmp_path), iters_per_epoch=5)
    trainer.extend(ext)
    seen = []
    trainer.extend(lambda tr: seen.append(tr.observation.get("k")), name="spy")
    trainer.run()
    assert [i for i, v in enumerate(seen, start=1) if v is not None] == [5, 10, 15, 20]


def test_observe_lr_of_a_named_optimizer_under_another_key(tmp_path):
    trainer = mock_trainer(stop=(1, "iteration"), out=str(tmp_path))
    other = optimizers.SGD(lr=0.125).setup(trainer.updater.optimizer.target)
    trainer.updater.get_optimizer = {
        "main": trainer.updater.optimizer,
        "other": other,
    }.__getitem__
    got = []
    trainer.extend(extensions.observe_lr("other", "other_lr"), trigger=(1, "iteration"))
    trainer.extend(lambda tr: got.append(dict(tr.observation)), name="spy")
    trainer.run()
    assert got == [{"other_lr": 0.125}]
