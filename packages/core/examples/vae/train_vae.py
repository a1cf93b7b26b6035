#!/usr/bin/env python
"""Variational autoencoder on MNIST (Kingma & Welling).

Encoder and decoder are MLPs; the loss is the Bernoulli reconstruction
likelihood plus beta times the KL divergence to a unit Gaussian, estimated
with the reparameterisation trick (`F.gaussian`).

    python train_vae.py --epoch 100 --dim-z 20

Offline, generated digit-like images stand in for MNIST.
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


class VAE(kusari.Chain):
    def __init__(self, n_in: int, n_latent: int, n_h: int) -> None:
        super().__init__()
        with self.init_scope():
            self.le1 = L.Linear(n_in, n_h)
            self.le2_mu = L.Linear(n_h, n_latent)
            self.le2_ln_var = L.Linear(n_h, n_latent)
            self.ld1 = L.Linear(n_latent, n_h)
            self.ld2 = L.Linear(n_h, n_in)

    def encode(self, x):
        h = F.tanh(self.le1(x))
        return self.le2_mu(h), self.le2_ln_var(h)

    def decode(self, z, sigmoid: bool = True):
        y = self.ld2(F.tanh(self.ld1(z)))
        return F.sigmoid(y) if sigmoid else y

    def forward(self, x, sigmoid: bool = True):
        return self.decode(self.encode(x)[0], sigmoid)

    def get_loss_func(self, beta: float = 1.0, k: int = 1):
        """Negative ELBO averaged over the batch (k samples of z)."""

        def lf(x):
            mu, ln_var = self.encode(x)
            batchsize = len(mu)
            rec_loss = 0
            for _ in range(k):
                z = F.gaussian(mu, ln_var)
                rec_loss += F.bernoulli_nll(x, self.decode(z, sigmoid=False)) / (
                    k * batchsize
                )
            kl = beta * F.gaussian_kl_divergence(mu, ln_var) / batchsize
            loss = rec_loss + kl
            kusari.report({"loss": loss, "rec_loss": rec_loss, "kl": kl}, observer=self)
            return loss

        return lf


def load_data():
    try:
        train, test = kusari.datasets.get_mnist(withlabel=False)
        return train, test, "MNIST"
    except Exception as e:  # offline
        from _offline import synthetic_digits

        print(
            f"MNIST is not available ({type(e).__name__}: {e}).\n"
            "Training on GENERATED digit-like images instead.",
            file=sys.stderr,
        )
        train, test = synthetic_digits(2000, 500)
        return train._datasets[0], test._datasets[0], "generated digits"


def main(argv=None) -> float:
    p = _common.parser(__doc__, epoch=100, batchsize=100)
    p.add_argument("--dim-z", "-z", type=int, default=20)
    p.add_argument("--dim-h", type=int, default=500)
    p.add_argument("--beta", type=float, default=1.0)
    args = p.parse_args(argv)
    device = _common.device_of(args.device)

    train, test, name = load_data()
    print(f"Dataset: {name} ({len(train)} train / {len(test)} test)")
    model = VAE(784, args.dim_z, args.dim_h)
    model.to_device(device)
    optimizer = kusari.optimizers.Adam()
    optimizer.setup(model)
    train_iter = kusari.iterators.SerialIterator(train, args.batchsize)
    test_iter = kusari.iterators.SerialIterator(
        test, args.batchsize, repeat=False, shuffle=False
    )
    updater = training.updaters.StandardUpdater(
        train_iter, optimizer, device=device, loss_func=model.get_loss_func(args.beta)
    )
    trainer = _common.make_trainer(updater, args)
    trainer.extend(
        extensions.Evaluator(
            test_iter, model, device=device, eval_func=model.get_loss_func(args.beta)
        )
    )
    _common.add_reporting(
        trainer,
        ["main/loss", "validation/main/loss", "main/rec_loss", "main/kl"],
        progress=not args.max_iterations,
    )
    _common.resume(trainer, args.resume)
    trainer.run()

    # Reconstruction error on a few test images, as a plain number to look at.
    x = device.send(np.asarray(test[:100]))
    with kusari.using_config("train", False), kusari.no_backprop_mode():
        rec = model(x)
    err = float(F.mean_squared_error(rec, x).array)
    print(f"test reconstruction MSE: {err:.4f}")
    _common.report_done(args)
    return err


if __name__ == "__main__":
    main()
