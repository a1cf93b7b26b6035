#!/usr/bin/env python
"""A VGG-style convolutional network on CIFAR-10 (or CIFAR-100).

Blocks of 3x3 convolution + batch normalization + ReLU, max pooling and
dropout, then two fully connected layers.

    python train_cifar.py --dataset cifar10 --epoch 300

Offline, generated textured images stand in for CIFAR.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import _common

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import training
from kusari.training import extensions


class Block(kusari.Chain):
    def __init__(self, out_channels: int, ksize: int = 3, pad: int = 1) -> None:
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(None, out_channels, ksize, pad=pad, nobias=True)
            self.bn = L.BatchNormalization(out_channels)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class VGG(kusari.Chain):
    """Widths (64, 128, 256, 512) by default; `width` scales them down."""

    def __init__(self, n_class: int = 10, width: float = 1.0) -> None:
        super().__init__()
        c = [max(8, int(w * width)) for w in (64, 128, 256, 512)]
        with self.init_scope():
            self.block1_1 = Block(c[0])
            self.block1_2 = Block(c[0])
            self.block2_1 = Block(c[1])
            self.block2_2 = Block(c[1])
            self.block3_1 = Block(c[2])
            self.block3_2 = Block(c[2])
            self.block4_1 = Block(c[3])
            self.fc1 = L.Linear(None, c[3], nobias=True)
            self.bn_fc1 = L.BatchNormalization(c[3])
            self.fc2 = L.Linear(None, n_class)

    def forward(self, x):
        h = self.block1_2(F.dropout(self.block1_1(x), 0.3))
        h = F.max_pooling_2d(h, 2, 2)
        h = self.block2_2(F.dropout(self.block2_1(h), 0.4))
        h = F.max_pooling_2d(h, 2, 2)
        h = self.block3_2(F.dropout(self.block3_1(h), 0.4))
        h = F.max_pooling_2d(h, 2, 2)
        h = F.max_pooling_2d(self.block4_1(h), 2, 2)
        h = F.dropout(h, 0.5)
        h = F.relu(self.bn_fc1(self.fc1(h)))
        return self.fc2(F.dropout(h, 0.5))


def load_data(name: str):
    try:
        getter = (
            kusari.datasets.get_cifar10
            if name == "cifar10"
            else kusari.datasets.get_cifar100
        )
        return getter(scale=1.0), name, 10 if name == "cifar10" else 100
    except Exception as e:  # offline
        from _offline import synthetic_images

        print(
            f"{name} is not available ({type(e).__name__}: {e}).\n"
            "Training on GENERATED textured images instead.",
            file=sys.stderr,
        )
        return synthetic_images(), "generated images", 10


def main(argv=None) -> float:
    p = _common.parser(__doc__, epoch=300, batchsize=64)
    p.add_argument("--dataset", choices=["cifar10", "cifar100"], default="cifar10")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument(
        "--width",
        type=float,
        default=1.0,
        help="scale the channel widths (e.g. 0.25 for a quick run)",
    )
    args = p.parse_args(argv)
    device = _common.device_of(args.device)

    (train, test), name, n_class = load_data(args.dataset)
    print(f"Dataset: {name} ({len(train)} train / {len(test)} test)")
    model = L.Classifier(VGG(n_class, args.width))
    model.to_device(device)
    optimizer = kusari.optimizers.MomentumSGD(args.lr)
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
        extensions.ExponentialShift("lr", 0.5),
        trigger=(max(1, args.epoch // 12), "epoch"),
    )
    trainer.extend(extensions.observe_lr())
    _common.add_reporting(
        trainer,
        [
            "main/loss",
            "validation/main/loss",
            "main/accuracy",
            "validation/main/accuracy",
            "lr",
        ],
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
