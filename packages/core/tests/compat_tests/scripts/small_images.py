"""Chainer-style CIFAR classifier: what the CIFAR example relies on.

``get_cifar10()`` with labels, a VGG-like chain of convolution blocks with
batch normalization and dropout, ``MomentumSGD`` with a ``WeightDecay``
hook, ``ExponentialShift`` on the learning rate, ``EarlyStoppingTrigger`` as
the stop trigger, and the pre-v7 ``--gpu`` option (``args.gpu >= 0`` picks a
GPU, anything else stays on the CPU).
"""

import argparse

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.datasets import get_cifar10
from chainer.training import extensions, triggers


class ConvBlock(chainer.Chain):
    def __init__(self, channels):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(None, channels, 3, pad=1, nobias=True)
            self.bn = L.BatchNormalization(channels)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class SmallVGG(chainer.Chain):
    def __init__(self, classes):
        super().__init__()
        with self.init_scope():
            self.block1 = ConvBlock(8)
            self.block2 = ConvBlock(16)
            self.fc = L.Linear(None, classes, nobias=True)

    def forward(self, x):
        h = F.max_pooling_2d(self.block1(x), ksize=2, stride=2)
        h = F.dropout(h, ratio=0.3)
        h = F.max_pooling_2d(self.block2(h), ksize=2, stride=2)
        return self.fc(F.dropout(h, ratio=0.5))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batchsize", "-b", type=int, default=50)
    parser.add_argument("--learnrate", "-l", type=float, default=0.05)
    parser.add_argument("--epoch", "-e", type=int, default=3)
    parser.add_argument("--gpu", "-g", type=int, default=0)
    parser.add_argument("--out", "-o", default="result")
    args = parser.parse_args()

    train, test = get_cifar10()
    model = L.Classifier(SmallVGG(10))
    if args.gpu >= 0:
        chainer.backends.cuda.get_device_from_id(args.gpu).use()
        model.to_gpu()
    optimizer = chainer.optimizers.MomentumSGD(args.learnrate)
    optimizer.setup(model)
    optimizer.add_hook(chainer.optimizer_hooks.WeightDecay(5e-4))

    stop = triggers.EarlyStoppingTrigger(
        monitor="validation/main/loss",
        check_trigger=(1, "epoch"),
        patients=1,
        max_trigger=(args.epoch, "epoch"),
    )
    updater = training.updaters.StandardUpdater(
        chainer.iterators.SerialIterator(train, args.batchsize),
        optimizer,
        device=args.gpu,
    )
    trainer = training.Trainer(updater, stop, out=args.out)
    trainer.extend(
        extensions.Evaluator(
            chainer.iterators.SerialIterator(
                test, args.batchsize, repeat=False, shuffle=False
            ),
            model,
            device=args.gpu,
        )
    )
    trainer.extend(extensions.ExponentialShift("lr", 0.5), trigger=(1, "epoch"))
    trainer.extend(extensions.observe_lr(), trigger=(1, "epoch"))
    trainer.extend(extensions.snapshot(filename="snapshot_epoch_{.updater.epoch}"))
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(["epoch", "main/loss", "lr"]))
    trainer.run()

    log = trainer.get_extension("LogReport").log
    assert 1 <= len(log) <= args.epoch, log
    # The rate halves after every epoch: 0.05, then 0.025, ...
    for i, entry in enumerate(log):
        assert abs(entry["lr"] - args.learnrate * 0.5**i) < 1e-12, log
    assert optimizer.lr == args.learnrate * 0.5 ** len(log)
    print("OK small_images", len(log))


if __name__ == "__main__":
    main()
