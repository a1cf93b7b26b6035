#!/usr/bin/env python
"""Residual network with stochastic depth (Huang et al.) on CIFAR-10.

While training, each residual block is dropped for the whole batch with a
probability growing linearly with depth, so every batch trains a different,
shallower network: an `if` in `forward`, nothing more. At test time every
block runs, its residual scaled by its survival probability.

    python train_stochastic_depth.py --epoch 100 --blocks 9

Offline, generated textured images stand in for CIFAR-10.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import _common
import numpy as np

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import training
from kusari.training import extensions


class ResBlock(kusari.Chain):
    def __init__(self, channels: int, survival: float) -> None:
        super().__init__()
        self.survival = survival
        w = kusari.initializers.HeNormal()
        with self.init_scope():
            self.c1 = L.Convolution2D(
                channels, channels, 3, 1, 1, initialW=w, nobias=True
            )
            self.b1 = L.BatchNormalization(channels)
            self.c2 = L.Convolution2D(
                channels, channels, 3, 1, 1, initialW=w, nobias=True
            )
            self.b2 = L.BatchNormalization(channels)

    def residual(self, x):
        return self.b2(self.c2(F.relu(self.b1(self.c1(x)))))

    def forward(self, x, rng: np.random.Generator):
        if kusari.config.train:
            if rng.random() >= self.survival:
                return x  # the block is skipped for this batch
            return F.relu(x + self.residual(x))
        return F.relu(x + self.survival * self.residual(x))


class StochasticDepthResNet(kusari.Chain):
    def __init__(
        self,
        n_blocks: int,
        channels: int = 32,
        n_class: int = 10,
        p_last: float = 0.5,
        seed: int = 0,
    ) -> None:
        super().__init__()
        self.rng = np.random.default_rng(seed)
        with self.init_scope():
            self.conv = L.Convolution2D(3, channels, 3, 1, 1, nobias=True)
            self.bn = L.BatchNormalization(channels)
            self.blocks = kusari.ChainList(
                *[
                    ResBlock(channels, 1.0 - (i + 1) / n_blocks * (1.0 - p_last))
                    for i in range(n_blocks)
                ]
            )
            self.fc = L.Linear(channels, n_class)

    def forward(self, x):
        h = F.relu(self.bn(self.conv(x)))
        for i, block in enumerate(self.blocks):
            h = block(h, self.rng)
            if i == len(self.blocks) // 2:
                h = F.max_pooling_2d(h, 2)
        h = F.average(h, axis=(2, 3))
        return self.fc(h)


def load_data():
    try:
        train, test = kusari.datasets.get_cifar10(scale=1.0)
        return train, test, "CIFAR-10"
    except Exception as e:  # offline
        from _offline import synthetic_images

        print(
            f"CIFAR-10 is not available ({type(e).__name__}: {e}).\n"
            "Training on GENERATED textured images instead.",
            file=sys.stderr,
        )
        train, test = synthetic_images()
        return train, test, "generated images"


def main(argv=None) -> float:
    p = _common.parser(__doc__, epoch=100, batchsize=64)
    p.add_argument("--blocks", type=int, default=9)
    p.add_argument("--channels", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.1)
    args = p.parse_args(argv)
    device = _common.device_of(args.device)

    train, test, name = load_data()
    print(f"Dataset: {name} ({len(train)} train / {len(test)} test)")
    model = L.Classifier(StochasticDepthResNet(args.blocks, args.channels))
    model.to_device(device)
    optimizer = kusari.optimizers.MomentumSGD(lr=args.lr)
    optimizer.setup(model)
    optimizer.add_hook(kusari.optimizer_hooks.WeightDecay(5e-4))
    train_iter = kusari.iterators.SerialIterator(train, args.batchsize)
    test_iter = kusari.iterators.SerialIterator(
        test, args.batchsize, repeat=False, shuffle=False
    )
    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=device)
    trainer = _common.make_trainer(updater, args)
    trainer.extend(extensions.Evaluator(test_iter, model, device=device))
    trainer.extend(
        extensions.ExponentialShift("lr", 0.1),
        trigger=(max(1, args.epoch // 2), "epoch"),
    )
    _common.add_reporting(
        trainer,
        ["main/loss", "main/accuracy", "validation/main/accuracy"],
        progress=not args.max_iterations,
    )
    _common.resume(trainer, args.resume)
    trainer.run()
    log = trainer.get_extension("LogReport").log
    accuracy = (
        float(log[-1].get("validation/main/accuracy", float("nan")))
        if log
        else float("nan")
    )
    print(f"test accuracy: {accuracy:.3f}")
    _common.report_done(args)
    return accuracy


if __name__ == "__main__":
    main()
