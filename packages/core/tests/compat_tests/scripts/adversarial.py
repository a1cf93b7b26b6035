"""Chainer-style GAN: what the DCGAN example relies on.

A generator of transposed convolutions and a discriminator with noise and
``BatchNormalization(use_gamma=False)``, trained by a ``StandardUpdater``
subclass that takes its links through a ``models`` keyword and updates two
optimizers from one forward pass: the discriminator's loss and the
generator's loss both backprop through the same discriminator graph, once
each, as Chainer allows. A ``make_extension`` function writes a preview
image with Pillow.
"""

import argparse
import os

import chainer
import chainer.functions as F
import chainer.links as L
import numpy
from chainer import Variable, training
from chainer.training import extensions
from PIL import Image


def with_noise(device, h, sigma=0.2):
    if not chainer.config.train:
        return h
    return h + sigma * device.xp.random.randn(*h.shape).astype(h.dtype)


class Generator(chainer.Chain):
    def __init__(self, n_hidden, ch=16):
        super().__init__()
        self.n_hidden = n_hidden
        self.ch = ch
        w = chainer.initializers.Normal(0.02)
        with self.init_scope():
            self.fc = L.Linear(n_hidden, 4 * 4 * ch, initialW=w)
            self.up1 = L.Deconvolution2D(ch, ch // 2, 4, 2, 1, initialW=w)
            self.up2 = L.Deconvolution2D(ch // 2, ch // 4, 4, 2, 1, initialW=w)
            self.up3 = L.Deconvolution2D(ch // 4, 3, 4, 2, 1, initialW=w)
            self.bn0 = L.BatchNormalization(4 * 4 * ch)
            self.bn1 = L.BatchNormalization(ch // 2)
            self.bn2 = L.BatchNormalization(ch // 4)

    def make_hidden(self, n):
        z = numpy.random.uniform(-1, 1, (n, self.n_hidden, 1, 1))
        return z.astype(chainer.get_dtype())

    def forward(self, z):
        h = F.reshape(F.relu(self.bn0(self.fc(z))), (len(z), self.ch, 4, 4))
        h = F.relu(self.bn1(self.up1(h)))
        h = F.relu(self.bn2(self.up2(h)))
        return F.sigmoid(self.up3(h))


class Discriminator(chainer.Chain):
    def __init__(self, ch=16):
        super().__init__()
        w = chainer.initializers.Normal(0.02)
        with self.init_scope():
            self.c0 = L.Convolution2D(3, ch // 4, 4, 2, 1, initialW=w)
            self.c1 = L.Convolution2D(ch // 4, ch // 2, 4, 2, 1, initialW=w)
            self.c2 = L.Convolution2D(ch // 2, ch, 4, 2, 1, initialW=w)
            self.out = L.Linear(4 * 4 * ch, 1, initialW=w)
            self.bn1 = L.BatchNormalization(ch // 2, use_gamma=False)
            self.bn2 = L.BatchNormalization(ch, use_gamma=False)

    def forward(self, x):
        device = self.device
        h = F.leaky_relu(with_noise(device, self.c0(with_noise(device, x))))
        h = F.leaky_relu(with_noise(device, self.bn1(self.c1(h))))
        h = F.leaky_relu(with_noise(device, self.bn2(self.c2(h))))
        return self.out(h)


class GANUpdater(training.updaters.StandardUpdater):
    def __init__(self, *args, **kwargs):
        self.gen, self.dis = kwargs.pop("models")
        super().__init__(*args, **kwargs)

    def dis_loss(self, dis, y_fake, y_real):
        n = len(y_fake)
        loss = F.sum(F.softplus(-y_real)) / n + F.sum(F.softplus(y_fake)) / n
        chainer.report({"loss": loss}, dis)
        return loss

    def gen_loss(self, gen, y_fake):
        loss = F.sum(F.softplus(-y_fake)) / len(y_fake)
        chainer.report({"loss": loss}, gen)
        return loss

    def update_core(self):
        batch = self.get_iterator("main").next()
        device = self.device
        x_real = Variable(self.converter(batch, device)) / 255.0
        y_real = self.dis(x_real)
        z = Variable(device.xp.asarray(self.gen.make_hidden(len(batch))))
        y_fake = self.dis(self.gen(z))
        # Both updates run backward through y_fake's graph.
        self.get_optimizer("dis").update(self.dis_loss, self.dis, y_fake, y_real)
        self.get_optimizer("gen").update(self.gen_loss, self.gen, y_fake)


def preview(gen, out):
    @chainer.training.make_extension()
    def write(trainer):
        z = Variable(gen.xp.asarray(gen.make_hidden(4)))
        with chainer.using_config("train", False):
            x = chainer.backends.cuda.to_cpu(gen(z).array)
        x = numpy.clip(x * 255, 0, 255).astype(numpy.uint8)
        tiles = x.transpose(0, 2, 3, 1).reshape(4 * 32, 32, 3)
        os.makedirs(out, exist_ok=True)
        name = f"image{trainer.updater.iteration:0>4}.png"
        Image.fromarray(tiles).save(os.path.join(out, name))

    return write


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batchsize", "-b", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=4)
    parser.add_argument("--device", "-d", type=str, default="-1")
    parser.add_argument("--out", "-o", default="result")
    parser.add_argument("--n_hidden", "-n", type=int, default=8)
    args = parser.parse_args()
    device = chainer.get_device(args.device)
    device.use()

    gen, dis = Generator(args.n_hidden), Discriminator()
    gen.to_device(device)
    dis.to_device(device)

    def adam(link):
        optimizer = chainer.optimizers.Adam(alpha=0.0002, beta1=0.5)
        optimizer.setup(link)
        optimizer.add_hook(chainer.optimizer_hooks.WeightDecay(0.0001), "hook_dec")
        return optimizer

    train, _ = chainer.datasets.get_cifar10(withlabel=False, scale=255.0)
    updater = GANUpdater(
        models=(gen, dis),
        iterator=chainer.iterators.SerialIterator(train, args.batchsize),
        optimizer={"gen": adam(gen), "dis": adam(dis)},
        device=device,
    )
    trainer = training.Trainer(updater, (args.iterations, "iteration"), out=args.out)
    trainer.extend(extensions.LogReport(trigger=(2, "iteration")))
    trainer.extend(extensions.PrintReport(["iteration", "gen/loss", "dis/loss"]))
    trainer.extend(
        extensions.snapshot_object(gen, "gen_iter_{.updater.iteration}.npz"),
        trigger=(args.iterations, "iteration"),
    )
    trainer.extend(
        preview(gen, os.path.join(args.out, "preview")), trigger=(2, "iteration")
    )
    trainer.run()
    assert updater.iteration == args.iterations
    assert os.path.exists(os.path.join(args.out, f"gen_iter_{args.iterations}.npz"))
    print("OK adversarial")


if __name__ == "__main__":
    main()
