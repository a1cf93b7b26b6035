"""Small fixed Q-functions for hand-checkable DQN tests."""

from __future__ import annotations

import numpy as np

import kusari
import kusari.functions as F
import kusari.links as L
from kusari_rl.action_value import DiscreteActionValue


class LinearQ(kusari.Chain):
    """``Q(s) = s @ W.T`` with a given ``W`` (n_actions x obs_size)."""

    def __init__(self, W):
        super().__init__()
        with self.init_scope():
            self.l = L.Linear(W.shape[1], W.shape[0], nobias=True, initialW=W)

    def forward(self, x):
        return DiscreteActionValue(self.l(x))


def linear_q(W=None):
    if W is None:
        W = np.array([[1.0, 0.0], [0.0, 2.0]], dtype=np.float32)
    return LinearQ(W.astype(np.float32))


def sgd(model, lr=0.1):
    opt = kusari.optimizers.SGD(lr)
    opt.setup(model)
    return opt


def as_f32(x):
    return np.asarray(x, dtype=np.float32)


__all__ = ["F", "as_f32", "linear_q", "sgd"]
