"""Small generated stand-ins for datasets that cannot be downloaded offline."""

from __future__ import annotations

import numpy as np

from kusari.datasets import TupleDataset


def synthetic_digits(n_train: int = 6000, n_test: int = 1000, seed: int = 0,
                     ndim: int = 1) -> tuple[TupleDataset, TupleDataset]:
    """Ten classes of noisy 28x28 strokes, shaped like MNIST (float32 in [0, 1]).

    Each class is a fixed random pattern of a few thick strokes; examples add
    a random shift and pixel noise, so a model has something real to learn.
    """
    rng = np.random.default_rng(seed)
    protos = np.zeros((10, 28, 28), np.float32)
    for c in range(10):
        for _ in range(3):
            r0, c0, r1, c1 = rng.integers(4, 24, 4)
            n = 40
            rr = np.linspace(r0, r1, n).astype(int)
            cc = np.linspace(c0, c1, n).astype(int)
            for dr in (-1, 0, 1):
                protos[c, np.clip(rr + dr, 0, 27), cc] = 1.0

    def make(n: int) -> TupleDataset:
        labels = rng.integers(0, 10, n).astype(np.int32)
        images = np.empty((n, 28, 28), np.float32)
        for i, c in enumerate(labels):
            shifted = np.roll(protos[c], tuple(rng.integers(-2, 3, 2)), axis=(0, 1))
            images[i] = np.clip(shifted + rng.normal(0, 0.3, (28, 28)), 0, 1)
        x = images.reshape(n, -1) if ndim == 1 else images[:, None]
        return TupleDataset(x, labels)

    return make(n_train), make(n_test)
