"""Chainer-style variational autoencoder: what the VAE example relies on.

Encoder and decoder links that return ``chainer.distributions`` objects, a
prior kept as persistent arrays, ``chainer.kl_divergence``, multi-sample
``sample(k)`` with ``Linear(n_batch_axes=2)``, a ``StandardUpdater`` with
``loss_func``, ``split_dataset``, binarized MNIST and figures saved with
matplotlib's Agg backend.
"""

import argparse
import os

import matplotlib

matplotlib.use("Agg")
import chainer
import chainer.distributions as D
import chainer.functions as F
import chainer.links as L
import matplotlib.pyplot as plt
import numpy as np
from chainer import training
from chainer.training import extensions


class Encoder(chainer.Chain):
    def __init__(self, inputs, latent, hidden):
        super().__init__()
        with self.init_scope():
            self.hidden = L.Linear(inputs, hidden)
            self.mean = L.Linear(hidden, latent)
            self.log_sigma = L.Linear(hidden, latent)

    def forward(self, x):
        h = F.tanh(self.hidden(x))
        return D.Normal(loc=self.mean(h), log_scale=self.log_sigma(h))


class Decoder(chainer.Chain):
    def __init__(self, inputs, latent, hidden, binary_check=False):
        super().__init__()
        self.binary_check = binary_check
        with self.init_scope():
            self.hidden = L.Linear(latent, hidden)
            self.logit = L.Linear(hidden, inputs)

    def forward(self, z, inference=False):
        axes = 1 if inference else 2
        h = F.tanh(self.hidden(z, n_batch_axes=axes))
        return D.Bernoulli(
            logit=self.logit(h, n_batch_axes=axes), binary_check=self.binary_check
        )


class StandardNormal(chainer.Link):
    def __init__(self, latent):
        super().__init__()
        self.loc = np.zeros(latent, np.float32)
        self.scale = np.ones(latent, np.float32)
        self.register_persistent("loc")
        self.register_persistent("scale")

    def forward(self):
        return D.Normal(self.loc, scale=self.scale)


class NegativeELBO(chainer.Chain):
    def __init__(self, encoder, decoder, prior, samples):
        super().__init__()
        self.samples = samples
        with self.init_scope():
            self.encoder = encoder
            self.decoder = decoder
            self.prior = prior

    def forward(self, x):
        q_z = self.encoder(x)
        p_x = self.decoder(q_z.sample(self.samples))
        target = F.broadcast_to(x[None, :], (self.samples,) + x.shape)
        reconstruction = F.mean(F.sum(p_x.log_prob(target), axis=-1))
        penalty = F.mean(F.sum(chainer.kl_divergence(q_z, self.prior()), axis=-1))
        loss = penalty - reconstruction
        chainer.report(
            {"loss": loss, "reconstr": reconstruction, "kl_penalty": penalty}, self
        )
        return loss


def save_grid(images, path):
    cpu = chainer.get_device("@numpy")
    fig, axes = plt.subplots(2, 2, figsize=(4, 4))
    for ax, image in zip(axes.flatten(), images):
        ax.imshow(cpu.send(image).reshape(28, 28))
    fig.savefig(path)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", "-d", type=str, default="-1")
    parser.add_argument("--epoch", "-e", type=int, default=1)
    parser.add_argument("--dim-z", "-z", type=int, default=4)
    parser.add_argument("--dim-h", type=int, default=24)
    parser.add_argument("--k", "-k", type=int, default=2)
    parser.add_argument("--batch-size", "-b", type=int, default=50)
    parser.add_argument("--binary", action="store_true")
    parser.add_argument("--out", "-o", default="result")
    args = parser.parse_args()
    device = chainer.get_device(args.device)
    device.use()

    encoder = Encoder(784, args.dim_z, args.dim_h)
    decoder = Decoder(784, args.dim_z, args.dim_h, binary_check=args.binary)
    prior = StandardNormal(args.dim_z)
    objective = NegativeELBO(encoder, decoder, prior, args.k)
    objective.to_device(device)
    optimizer = chainer.optimizers.Adam()
    optimizer.setup(objective)

    train, test = chainer.datasets.get_mnist(withlabel=False)
    if args.binary:
        train = (train >= 0.5).astype(np.float32)
        test = (test >= 0.5).astype(np.float32)
    train, _ = chainer.datasets.split_dataset(train, 200)
    test, _ = chainer.datasets.split_dataset(test, 100)

    updater = training.updaters.StandardUpdater(
        chainer.iterators.SerialIterator(train, args.batch_size),
        optimizer,
        device=device,
        loss_func=objective,
    )
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)
    trainer.extend(
        extensions.Evaluator(
            chainer.iterators.SerialIterator(
                test, args.batch_size, repeat=False, shuffle=False
            ),
            objective,
            device=device,
        )
    )
    trainer.extend(extensions.DumpGraph("main/loss"))
    trainer.extend(extensions.LogReport())
    trainer.extend(
        extensions.PrintReport(
            ["epoch", "main/loss", "main/reconstr", "main/kl_penalty"]
        )
    )
    trainer.run()
    assert np.isfinite(float(trainer.observation["main/loss"].array))

    x = device.send(np.asarray(test[[0, 1, 2, 3]]))
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        rebuilt = decoder(encoder(x).mean, inference=True).mean.array
        sampled = decoder(prior().sample(4), inference=True).mean.array
    assert rebuilt.shape == (4, 784) and sampled.shape == (4, 784)
    save_grid(rebuilt, os.path.join(args.out, "rebuilt.png"))
    save_grid(sampled, os.path.join(args.out, "sampled.png"))
    print("OK variational")


if __name__ == "__main__":
    main()
