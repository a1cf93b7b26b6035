"""Chainer-style digit classifier: what Chainer's MNIST examples rely on.

Trains an MLP on ``chainer.datasets.get_mnist()`` with a Trainer and the
usual extensions, resumes from the snapshot it wrote, then trains again with
a hand-written loop and with ``ParallelUpdater`` over two CPU devices. Run it
through the alias: ``python -m kusari.compat classify_digits.py --device -1``.
"""

import argparse
import os
import re

import chainer
import chainer.functions as F
import chainer.links as L
import chainerx
import numpy
from chainer import training
from chainer.dataset import convert
from chainer.training import extensions


class Perceptron(chainer.Chain):
    def __init__(self, hidden, classes):
        super().__init__()
        with self.init_scope():
            self.fc1 = L.Linear(None, hidden)
            self.fc2 = L.Linear(hidden, classes)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def device_from_option(text):
    # The examples accept an integer ("-1": NumPy) or a device specifier.
    if re.match(r"[-+]?\d+$", text):
        number = int(text)
        return chainer.get_device(numpy if number < 0 else f"@cupy:{number}")
    return chainer.get_device(text)


def train_with_trainer(args, device, out, resume=None):
    model = L.Classifier(Perceptron(args.unit, 10))
    model.to_device(device)
    device.use()
    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)
    train, test = chainer.datasets.get_mnist()
    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(
        test, args.batchsize, repeat=False, shuffle=False
    )
    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=out)
    trainer.extend(extensions.Evaluator(test_iter, model, device=device))
    if device.xp is not chainerx:
        trainer.extend(extensions.DumpGraph("main/loss"))
    trainer.extend(extensions.snapshot(), trigger=(1, "epoch"))
    trainer.extend(extensions.LogReport())
    if extensions.PlotReport.available():
        trainer.extend(
            extensions.PlotReport(
                ["main/loss", "validation/main/loss"], "epoch", file_name="loss.png"
            )
        )
    trainer.extend(
        extensions.PrintReport(
            ["epoch", "main/loss", "validation/main/loss", "main/accuracy"]
        )
    )
    trainer.extend(extensions.ProgressBar())
    if resume is not None:
        chainer.serializers.load_npz(resume, trainer)
    trainer.run()
    return trainer


def train_by_hand(args, device):
    model = L.Classifier(Perceptron(args.unit, 10))
    model.to_device(device)
    optimizer = chainer.optimizers.MomentumSGD(lr=0.05)
    optimizer.setup(model)
    train, test = chainer.datasets.get_mnist()
    batches = chainer.iterators.SerialIterator(train, args.batchsize)
    seen = 0
    while batches.epoch < 1:
        x, t = convert.concat_examples(batches.next(), device)
        optimizer.update(model, x, t)
        seen += len(t)
        assert numpy.isfinite(float(model.loss.array))
    assert seen >= len(train)
    total = 0.0
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        for batch in chainer.iterators.SerialIterator(
            test, args.batchsize, repeat=False, shuffle=False
        ):
            x, t = convert.concat_examples(batch, device)
            total += float(model(x, t).array) * len(t)
    return total / len(test)


def train_in_parallel(args, out):
    first, second = chainer.get_device("-1"), chainer.get_device(-1)
    model = L.Classifier(Perceptron(args.unit, 10))
    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)
    train, _ = chainer.datasets.get_mnist()
    updater = training.updaters.ParallelUpdater(
        chainer.iterators.SerialIterator(train, args.batchsize * 2),
        optimizer,
        devices={"main": first, "second": second},
    )
    trainer = training.Trainer(updater, (2, "iteration"), out=out)
    trainer.extend(extensions.LogReport(trigger=(1, "iteration")))
    trainer.run()
    return updater.iteration


def main():
    parser = argparse.ArgumentParser(description="Chainer-style MNIST")
    parser.add_argument("--batchsize", "-b", type=int, default=100)
    parser.add_argument("--epoch", "-e", type=int, default=1)
    parser.add_argument("--unit", "-u", type=int, default=32)
    parser.add_argument("--device", "-d", type=str, default="-1")
    parser.add_argument("--out", "-o", default="result")
    group = parser.add_argument_group("deprecated arguments")
    group.add_argument("--gpu", "-g", dest="device", type=int, nargs="?", const=0)
    args = parser.parse_args()
    device = device_from_option(str(args.device))
    print(f"Device: {device}")

    first = train_with_trainer(args, device, os.path.join(args.out, "first"))
    snapshot = os.path.join(
        args.out, "first", f"snapshot_iter_{first.updater.iteration}"
    )
    assert os.path.exists(snapshot), snapshot
    args.epoch += 1
    resumed = train_with_trainer(
        args, device, os.path.join(args.out, "resumed"), resume=snapshot
    )
    # One more epoch after the resumed state, not two from scratch.
    assert resumed.updater.iteration == 2 * first.updater.iteration

    loss = train_by_hand(args, device)
    assert numpy.isfinite(loss)
    iterations = train_in_parallel(args, os.path.join(args.out, "parallel"))
    assert iterations == 2
    print("OK classify_digits")


if __name__ == "__main__":
    main()
