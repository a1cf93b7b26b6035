#!/usr/bin/env python
"""DCGAN (Radford et al.) on CIFAR-10: a generator of 32x32 images and a
discriminator trained against each other.

    python train_dcgan.py --epoch 100

Offline, generated textured images stand in for CIFAR-10.

Note for Chainer users: both losses go through the same generated batch, so
the first backward keeps the graph (`retain_grad=True`); kusari frees the
arrays a graph retained once backward has passed them, unless asked not to.
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


class Generator(kusari.Chain):
    def __init__(self, n_hidden: int, ch: int = 256, bottom: int = 4) -> None:
        super().__init__()
        self.n_hidden = n_hidden
        self.ch = ch
        self.bottom = bottom
        w = kusari.initializers.Normal(0.02)
        with self.init_scope():
            self.l0 = L.Linear(n_hidden, bottom * bottom * ch, initialW=w)
            self.dc1 = L.Deconvolution2D(ch, ch // 2, 4, 2, 1, initialW=w)
            self.dc2 = L.Deconvolution2D(ch // 2, ch // 4, 4, 2, 1, initialW=w)
            self.dc3 = L.Deconvolution2D(ch // 4, 3, 4, 2, 1, initialW=w)
            self.bn0 = L.BatchNormalization(bottom * bottom * ch)
            self.bn1 = L.BatchNormalization(ch // 2)
            self.bn2 = L.BatchNormalization(ch // 4)

    def make_hidden(self, batchsize: int):
        return np.random.uniform(-1, 1, (batchsize, self.n_hidden)).astype(np.float32)

    def forward(self, z):
        h = F.relu(self.bn0(self.l0(z)))
        h = F.reshape(h, (len(z), self.ch, self.bottom, self.bottom))
        h = F.relu(self.bn1(self.dc1(h)))
        h = F.relu(self.bn2(self.dc2(h)))
        return F.sigmoid(self.dc3(h))


class Discriminator(kusari.Chain):
    def __init__(self, ch: int = 256, bottom: int = 4) -> None:
        super().__init__()
        w = kusari.initializers.Normal(0.02)
        with self.init_scope():
            self.c0 = L.Convolution2D(3, ch // 4, 4, 2, 1, initialW=w)
            self.c1 = L.Convolution2D(ch // 4, ch // 2, 4, 2, 1, initialW=w)
            self.c2 = L.Convolution2D(ch // 2, ch, 4, 2, 1, initialW=w)
            self.l3 = L.Linear(bottom * bottom * ch, 1, initialW=w)
            self.bn1 = L.BatchNormalization(ch // 2, use_gamma=False)
            self.bn2 = L.BatchNormalization(ch, use_gamma=False)

    def forward(self, x):
        h = F.leaky_relu(self.c0(x))
        h = F.leaky_relu(self.bn1(self.c1(h)))
        h = F.leaky_relu(self.bn2(self.c2(h)))
        return self.l3(h)


class DCGANUpdater(training.updaters.StandardUpdater):
    def __init__(self, iterator, gen_opt, dis_opt, device) -> None:
        super().__init__(iterator, {"gen": gen_opt, "dis": dis_opt}, device=device)

    def update_core(self) -> None:
        gen_opt = self.get_optimizer("gen")
        dis_opt = self.get_optimizer("dis")
        gen, dis = gen_opt.target, dis_opt.target
        batch = self.get_iterator("main").next()
        x_real = kusari.Variable(self.converter(batch, self.device))
        y_real = dis(x_real)
        z = self.device.send(gen.make_hidden(len(batch)))
        x_fake = gen(z)
        y_fake = dis(x_fake)
        # softplus(-y) = -log sigmoid(y): the standard non-saturating losses.
        n = len(batch)
        loss_dis = F.sum(F.softplus(-y_real)) / n + F.sum(F.softplus(y_fake)) / n
        loss_gen = F.sum(F.softplus(-y_fake)) / n
        dis.cleargrads()
        loss_dis.backward(retain_grad=True)  # loss_gen reuses y_fake's graph
        dis_opt.update()
        gen.cleargrads()
        loss_gen.backward()
        gen_opt.update()
        kusari.report({"loss": loss_dis}, dis)
        kusari.report({"loss": loss_gen}, gen)


def load_data():
    try:
        train, _ = kusari.datasets.get_cifar10(withlabel=False, scale=1.0)
        return train, "CIFAR-10"
    except Exception as e:  # offline
        from _offline import synthetic_images

        print(
            f"CIFAR-10 is not available ({type(e).__name__}: {e}).\n"
            "Training on GENERATED textured images instead.",
            file=sys.stderr,
        )
        train, _ = synthetic_images(2000, 10)
        return train._datasets[0], "generated images"


def main(argv=None):
    p = _common.parser(__doc__, epoch=100, batchsize=50)
    p.add_argument("--n-hidden", "-n", type=int, default=100)
    p.add_argument("--ch", type=int, default=256)
    args = p.parse_args(argv)
    device = _common.device_of(args.device)

    train, name = load_data()
    print(f"Dataset: {name} ({len(train)} images)")
    gen = Generator(args.n_hidden, args.ch)
    dis = Discriminator(args.ch)
    gen.to_device(device)
    dis.to_device(device)

    def make_optimizer(model, alpha=2e-4, beta1=0.5):
        opt = kusari.optimizers.Adam(alpha=alpha, beta1=beta1)
        opt.setup(model)
        opt.add_hook(kusari.optimizer_hooks.WeightDecay(1e-4), "hook_dec")
        return opt

    train_iter = kusari.iterators.SerialIterator(train, args.batchsize)
    updater = DCGANUpdater(train_iter, make_optimizer(gen), make_optimizer(dis), device)
    trainer = _common.make_trainer(updater, args)
    _common.add_reporting(
        trainer, ["gen/loss", "dis/loss"], progress=not args.max_iterations
    )
    _common.resume(trainer, args.resume)
    trainer.run()
    with kusari.using_config("train", False), kusari.no_backprop_mode():
        samples = gen(device.send(gen.make_hidden(16))).array
    _save_grid(
        kusari.backends.cuda.to_cpu(samples), os.path.join(args.out, "samples.png")
    )
    _common.report_done(args)
    return samples


def _save_grid(images, path: str) -> None:
    try:
        from PIL import Image
    except ImportError:
        return
    n = int(np.ceil(np.sqrt(len(images))))
    c, h, w = images.shape[1:]
    grid = np.zeros((n * h, n * w, c), np.uint8)
    for i, img in enumerate(images):
        r, q = divmod(i, n)
        grid[r * h : (r + 1) * h, q * w : (q + 1) * w] = (
            (img.transpose(1, 2, 0) * 255).clip(0, 255).astype(np.uint8)
        )
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Image.fromarray(grid).save(path)


if __name__ == "__main__":
    main()
