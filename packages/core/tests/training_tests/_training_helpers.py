"""Shared helpers of the training tests: a tiny model, data, trainers, and the
drivers that several test modules use (trigger firing patterns, shifted
values, plots, output listings).

Importable from every folder under ``training_tests`` (see ``conftest.py``).
"""

from __future__ import annotations

import numpy as np

import kusari
import kusari.functions as F
from kusari import iterators, optimizers, reporter, training


class TinyMLP(kusari.Chain):
    """Two linear layers built from Parameters; reports loss and accuracy."""

    def __init__(self, seed: int = 1) -> None:
        super().__init__()
        rng = np.random.RandomState(seed)
        with self.init_scope():
            self.W1 = kusari.Parameter(rng.randn(6, 3).astype(np.float32) * 0.5)
            self.b1 = kusari.Parameter(np.zeros(6, dtype=np.float32))
            self.W2 = kusari.Parameter(rng.randn(2, 6).astype(np.float32) * 0.5)
            self.b2 = kusari.Parameter(np.zeros(2, dtype=np.float32))

    def predict(self, x):
        return F.linear(F.relu(F.linear(x, self.W1, self.b1)), self.W2, self.b2)

    def forward(self, x, t):
        y = self.predict(x)
        loss = F.softmax_cross_entropy(y, t)
        acc = (y.array.argmax(axis=1) == t).mean()
        reporter.report({"loss": loss, "accuracy": acc}, self)
        return loss


def make_dataset(n: int = 40, seed: int = 3):
    rng = np.random.RandomState(seed)
    x = rng.randn(n, 3).astype(np.float32)
    t = (x[:, 0] > 0).astype(np.int32)
    return list(zip(x, t))


class MockUpdater(training.Updater):
    """An updater that only counts: ``iters_per_epoch`` updates per epoch."""

    def __init__(self, optimizer=None, iters_per_epoch: int = 10) -> None:
        self.iteration = 0
        self.iters_per_epoch = iters_per_epoch
        self.optimizer = optimizer or optimizers.SGD().setup(kusari.Chain())
        self.finalized = False

    @property
    def epoch(self):
        return self.iteration // self.iters_per_epoch

    @property
    def epoch_detail(self):
        return self.iteration / self.iters_per_epoch

    @property
    def previous_epoch_detail(self):
        return max(self.iteration - 1, 0) / self.iters_per_epoch

    @property
    def is_new_epoch(self):
        return self.iteration % self.iters_per_epoch == 0

    def get_optimizer(self, name):
        return self.optimizer

    def get_all_optimizers(self):
        return {"main": self.optimizer}

    def update(self):
        self.iteration += 1

    def finalize(self):
        self.finalized = True

    def serialize(self, serializer):
        self.iteration = serializer("iteration", self.iteration)


def mock_trainer(
    stop=(10, "iteration"), out="result", iters_per_epoch=10, optimizer=None
):
    updater = MockUpdater(optimizer, iters_per_epoch)
    return training.Trainer(updater, stop, out=out)


def build_real_trainer(
    tmp_path, stop=(2, "epoch"), batch_size=8, shuffle=False, seed=1, **kwargs
):
    """A Trainer training TinyMLP with SGD on 40 examples."""
    model = TinyMLP(seed)
    opt = optimizers.SGD(lr=0.1).setup(model)
    it = iterators.SerialIterator(make_dataset(), batch_size, shuffle=shuffle)
    updater = training.updaters.StandardUpdater(it, opt, **kwargs)
    return training.Trainer(updater, stop, out=str(tmp_path / "result"))


def fire_pattern(trigger, n, iters_per_epoch=10, observations=None):
    """The iterations (1..n) at which ``trigger`` fires on a mock trainer;
    ``observations[i]`` is the observation seen at iteration ``i``."""
    trainer = mock_trainer(stop=None, iters_per_epoch=iters_per_epoch)
    fired = []
    for i in range(1, n + 1):
        trainer.updater.update()
        trainer.observation = (observations or {}).get(i, {})
        if trigger(trainer):
            fired.append(i)
    return fired


def lr_sequence(ext, n, lr=1.0, attr="lr"):
    """``optimizer.<attr>`` after ``ext.initialize`` and after each of ``n``
    calls of the shift extension ``ext`` (MomentumSGD starting at ``lr``)."""
    trainer = mock_trainer(stop=(n, "iteration"))
    opt = trainer.updater.optimizer = optimizers.MomentumSGD(lr=lr).setup(
        trainer.updater.optimizer.target
    )
    ext.initialize(trainer)
    values = [getattr(opt, attr)]
    for _ in range(n):
        trainer.updater.update()
        ext(trainer)
        values.append(getattr(opt, attr))
    return values


def reporting_trainer(tmp_path, stop=(6, "iteration")):
    """A mock trainer (4 iterations per epoch) whose observation holds
    ``loss`` = the iteration number and an array ``skip``."""
    trainer = mock_trainer(stop=stop, out=str(tmp_path), iters_per_epoch=4)

    def report(tr):
        reporter.report({"loss": float(tr.updater.iteration), "skip": np.zeros(2)})

    trainer.extend(report, name="report", priority=300)
    return trainer


def names(path):
    """The sorted names in folder ``path``."""
    return sorted(p.name for p in path.iterdir())


def assert_plot_is_drawn(path):
    """The image at ``path`` has a plausible size and a non-blank plot area."""
    from matplotlib.image import imread

    image = imread(str(path))
    h, w = image.shape[:2]
    assert 200 < w < 1200 and 200 < h < 1000, (w, h)
    # The plotting area holds more than one colour (curve, grid), not a blank.
    centre = image[h // 4 : 3 * h // 4, w // 4 : 3 * w // 4, :3]
    assert len(np.unique(centre.reshape(-1, 3), axis=0)) > 10
