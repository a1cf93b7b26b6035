"""The MNIST example's training setup, end to end, on a small synthetic task."""

from __future__ import annotations

import io
import json

import numpy as np

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import (
    datasets,
    iterators,
    optimizer_hooks,
    optimizers,
    serializers,
    training,
)
from kusari.training import extensions, triggers


class MLP(kusari.Chain):
    def __init__(self, n_units, n_out):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_units)
            self.l2 = L.Linear(None, n_out)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


def test_example_style_training(tmp_path):
    np.random.seed(0)
    rng = np.random.RandomState(0)
    x = rng.randn(120, 5).astype(np.float32)
    t = (x[:, 0] - x[:, 1] > 0).astype(np.int32)
    train = datasets.TupleDataset(x[:96], t[:96])
    test = datasets.TupleDataset(x[96:], t[96:])
    model = L.Classifier(MLP(16, 2))
    optimizer = optimizers.MomentumSGD(lr=0.1)
    optimizer.setup(model)
    optimizer.add_hook(optimizer_hooks.WeightDecay(1e-4))
    train_iter = iterators.SerialIterator(train, 16)
    test_iter = iterators.SerialIterator(test, 16, repeat=False, shuffle=False)
    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=-1)
    out = str(tmp_path / "result")
    trainer = training.Trainer(updater, (8, "epoch"), out=out)
    trainer.extend(extensions.Evaluator(test_iter, model, device=-1))
    trainer.extend(extensions.ExponentialShift("lr", 0.5), trigger=(4, "epoch"))
    trainer.extend(extensions.observe_lr())
    trainer.extend(extensions.snapshot(), trigger=(4, "epoch"))
    trainer.extend(
        extensions.snapshot_object(model, "model_{.updater.epoch}"),
        trigger=triggers.MaxValueTrigger("validation/main/accuracy"),
    )
    trainer.extend(extensions.LogReport())
    text = io.StringIO()
    trainer.extend(
        extensions.PrintReport(
            [
                "epoch",
                "main/loss",
                "validation/main/loss",
                "main/accuracy",
                "validation/main/accuracy",
                "lr",
            ],
            out=text,
        )
    )
    trainer.run()

    log = json.loads((tmp_path / "result" / "log").read_text())
    assert len(log) == 8
    assert log[-1]["main/accuracy"] > 0.85
    assert log[-1]["validation/main/accuracy"] > 0.8
    # observe_lr (a writer) runs before the shift (a reader) in the same epoch.
    assert [e["lr"] for e in log] == [0.1] * 4 + [0.05] * 4
    assert len(text.getvalue().splitlines()) == 9
    saved = sorted(p.name for p in (tmp_path / "result").iterdir())
    assert "snapshot_iter_24" in saved and "snapshot_iter_48" in saved
    assert any(name.startswith("model_") for name in saved)

    # Loading the epoch-4 snapshot into a fresh trainer restores its state.
    fresh_model = L.Classifier(MLP(16, 2))
    fresh_opt = optimizers.MomentumSGD(lr=0.1).setup(fresh_model)
    fresh_opt.add_hook(optimizer_hooks.WeightDecay(1e-4))
    fresh_updater = training.updaters.StandardUpdater(
        iterators.SerialIterator(train, 16), fresh_opt
    )
    fresh = training.Trainer(fresh_updater, (8, "epoch"), out=out)
    serializers.load_npz(str(tmp_path / "result" / "snapshot_iter_24"), fresh)
    assert fresh_updater.iteration == 24 and fresh_updater.epoch == 4
    assert fresh_opt.epoch == 4
    assert fresh_model.predictor.l1.W.array.shape == (16, 5)
