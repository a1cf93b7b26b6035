"""Dueling architectures (Wang et al., 2016), plain and distributional."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import kusari
import kusari.functions as F
import kusari.links as L
from kusari_rl.action_value import (
    DiscreteActionValue,
    DistributionalDiscreteActionValue,
)
from kusari_rl.links.mlp import MLP
from kusari_rl.q_function import StateQFunction

__all__ = ["DistributionalDuelingDQN", "DuelingDQN"]


def _conv_layers(n_input_channels: int, bias: float) -> kusari.ChainList:
    return kusari.ChainList(
        L.Convolution2D(n_input_channels, 32, 8, stride=4, initial_bias=bias),
        L.Convolution2D(32, 64, 4, stride=2, initial_bias=bias),
        L.Convolution2D(64, 64, 3, stride=1, initial_bias=bias),
    )


class DuelingDQN(kusari.Chain, StateQFunction):
    """Dueling network on the Nature DQN convolutions (84x84 frames).

    ``Q(s, a) = V(s) + A(s, a) - mean_b A(s, b)``.
    """

    def __init__(
        self,
        n_actions: int,
        n_input_channels: int = 4,
        activation: Callable[[Any], Any] = F.relu,
        bias: float = 0.1,
    ) -> None:
        super().__init__()
        self.n_actions = n_actions
        self.n_input_channels = n_input_channels
        self.activation = activation
        with self.init_scope():
            self.conv_layers = _conv_layers(n_input_channels, bias)
            self.a_stream = MLP(3136, n_actions, [512])
            self.v_stream = MLP(3136, 1, [512])

    def forward(self, x: Any) -> DiscreteActionValue:
        h = x
        for layer in self.conv_layers:
            h = self.activation(layer(h))
        h_a = self.a_stream(h)
        mean = F.mean(h_a, axis=1, keepdims=True)
        ya = h_a - F.broadcast_to(mean, h_a.shape)
        ys = self.v_stream(h)
        return DiscreteActionValue(ya + F.broadcast_to(ys, ya.shape))


class DistributionalDuelingDQN(kusari.Chain, StateQFunction):
    """Distributional dueling network (Rainbow's Q-function).

    Args:
        n_actions: Number of actions.
        n_atoms: Support size.
        v_min, v_max: Support bounds.
    """

    z_values: Any

    def __init__(
        self,
        n_actions: int,
        n_atoms: int,
        v_min: float,
        v_max: float,
        n_input_channels: int = 4,
        activation: Callable[[Any], Any] = F.relu,
        bias: float = 0.1,
    ) -> None:
        if not v_min < v_max:
            raise ValueError(
                f"DistributionalDuelingDQN: need v_min < v_max, got {v_min}, {v_max}"
            )
        super().__init__()
        self.n_actions = n_actions
        self.n_atoms = n_atoms
        self.n_input_channels = n_input_channels
        self.activation = activation
        with self.init_scope():
            self.conv_layers = _conv_layers(n_input_channels, bias)
            self.main_stream = L.Linear(3136, 1024)
            self.a_stream = L.Linear(512, n_actions * n_atoms)
            self.v_stream = L.Linear(512, n_atoms)
        self.add_persistent(
            "z_values", np.linspace(v_min, v_max, num=n_atoms, dtype=np.float32)
        )

    def forward(self, x: Any) -> DistributionalDiscreteActionValue:
        h = x
        for layer in self.conv_layers:
            h = self.activation(layer(h))
        h = self.activation(self.main_stream(h))
        h_a, h_v = F.split_axis(h, 2, axis=-1)
        batch = x.shape[0]
        ya = F.reshape(self.a_stream(h_a), (batch, self.n_actions, self.n_atoms))
        mean = F.mean(ya, axis=1, keepdims=True)
        ya = ya - F.broadcast_to(mean, ya.shape)
        ys = F.reshape(self.v_stream(h_v), (batch, 1, self.n_atoms))
        q = F.softmax(ya + F.broadcast_to(ys, ya.shape), axis=2)
        return DistributionalDiscreteActionValue(q, self.z_values)
