"""Chainer-style image-list training: what the ImageNet example relies on.

``LabeledImageDataset`` over a Caffe-style list file, a ``DatasetMixin``
that crops, flips and subtracts a mean image, ``MultiprocessIterator`` with
worker processes, ``MLPConvolution2D`` and grouped convolutions, the
``--dtype`` option that sets ``chainer.config.dtype`` (float16 included),
``observe_lr``, ``snapshot_object`` and ``--initmodel`` from that snapshot.
"""

import argparse
import os
import random

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np
from chainer import dataset, training
from chainer.training import extensions


class TinyNIN(chainer.Chain):
    insize = 32

    def __init__(self, classes=2):
        super().__init__()
        w = chainer.initializers.HeNormal()
        with self.init_scope():
            self.block1 = L.MLPConvolution2D(None, (8, 8), 3, stride=2, conv_init=w)
            self.grouped = L.Convolution2D(8, 8, 3, pad=1, groups=4, nobias=True)
            self.norm = L.BatchNormalization(8)
            self.block2 = L.MLPConvolution2D(None, (8, classes), 3, pad=1)

    def forward(self, x, t):
        h = F.max_pooling_2d(F.relu(self.block1(x)), 3, stride=2)
        h = F.relu(self.norm(self.grouped(h)))
        h = self.block2(F.dropout(h))
        h = F.reshape(F.average_pooling_2d(h, h.shape[2:]), (len(x), -1))
        loss = F.softmax_cross_entropy(h, t)
        chainer.report({"loss": loss, "accuracy": F.accuracy(h, t)}, self)
        return loss


class Cropped(chainer.dataset.DatasetMixin):
    def __init__(self, listing, root, mean, size, train=True):
        self.base = chainer.datasets.LabeledImageDataset(listing, root)
        self.mean = mean.astype(chainer.get_dtype())
        self.size = size
        self.train = train

    def __len__(self):
        return len(self.base)

    def get_example(self, i):
        image, label = self.base[i]
        _, height, width = image.shape
        if self.train:
            top = random.randint(0, height - self.size - 1)
            left = random.randint(0, width - self.size - 1)
            if random.randint(0, 1):
                image = image[:, :, ::-1]
        else:
            top, left = (height - self.size) // 2, (width - self.size) // 2
        window = (
            slice(None),
            slice(top, top + self.size),
            slice(left, left + self.size),
        )
        image = image[window] - self.mean[window]
        image *= 1.0 / 255.0
        assert image.dtype == chainer.get_dtype(), image.dtype
        return image, label


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("train")
    parser.add_argument("val")
    parser.add_argument("--root", "-R", default=".")
    parser.add_argument("--mean", "-m", default="mean.npy")
    parser.add_argument("--batchsize", "-B", type=int, default=2)
    parser.add_argument("--epoch", "-E", type=int, default=1)
    parser.add_argument("--dtype", choices=["float16", "float32", "float64"])
    parser.add_argument("--loaderjob", "-j", type=int, default=1)
    parser.add_argument("--initmodel")
    parser.add_argument("--device", "-d", type=str, default="-1")
    parser.add_argument("--out", "-o", default="result")
    args = parser.parse_args()
    if args.dtype is not None:
        chainer.config.dtype = args.dtype
    device = chainer.get_device(args.device)

    model = TinyNIN()
    if args.initmodel:
        chainer.serializers.load_npz(args.initmodel, model)
    model.to_device(device)
    device.use()
    mean = np.load(args.mean)
    train = Cropped(args.train, args.root, mean, model.insize)
    val = Cropped(args.val, args.root, mean, model.insize, train=False)
    train_iter = chainer.iterators.MultiprocessIterator(
        train, args.batchsize, n_processes=args.loaderjob
    )
    val_iter = chainer.iterators.MultiprocessIterator(
        val, args.batchsize, repeat=False, n_processes=args.loaderjob
    )
    optimizer = chainer.optimizers.MomentumSGD(lr=0.01, momentum=0.9)
    optimizer.setup(model)
    updater = training.updaters.StandardUpdater(
        train_iter, optimizer, converter=dataset.concat_examples, device=device
    )
    trainer = training.Trainer(updater, (args.epoch, "epoch"), args.out)
    every = (1, "iteration")
    trainer.extend(
        extensions.Evaluator(
            val_iter, model, converter=dataset.concat_examples, device=device
        ),
        trigger=every,
    )
    trainer.extend(
        extensions.snapshot_object(model, "model_iter_{.updater.iteration}"),
        trigger=every,
    )
    trainer.extend(extensions.LogReport(trigger=every))
    trainer.extend(extensions.observe_lr(), trigger=every)
    trainer.extend(
        extensions.PrintReport(["epoch", "iteration", "main/loss", "lr"]),
        trigger=every,
    )
    trainer.run()
    train_iter.finalize()
    val_iter.finalize()
    assert model.block1[0].W.dtype == chainer.get_dtype()
    last = os.path.join(args.out, f"model_iter_{updater.iteration}")
    assert os.path.exists(last), last
    print("OK image_folder", chainer.get_dtype())


if __name__ == "__main__":
    main()
