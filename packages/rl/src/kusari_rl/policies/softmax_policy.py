"""Policies over discrete actions (``chainerrl.policies.softmax_policy``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import kusari
import kusari.functions as F
from kusari_rl.distribution import SoftmaxDistribution
from kusari_rl.links.mlp import MLP
from kusari_rl.policies._spaces import discrete_size, hidden_sizes
from kusari_rl.policy import Policy

__all__ = ["FCSoftmaxPolicy", "SoftmaxPolicy"]


class SoftmaxPolicy(kusari.Chain, Policy):
    """Softmax policy over the logits that ``model`` computes.

    Args:
        model: Link mapping observations to ``(batch, n_actions)`` logits.
        beta: Inverse temperature of the softmax.
        min_prob: Floor on each action's probability.
    """

    def __init__(self, model: kusari.Link, beta: float = 1.0, min_prob: float = 0.0):
        super().__init__()
        self.beta = beta
        self.min_prob = min_prob
        with self.init_scope():
            self.model = model

    def forward(self, x: Any) -> SoftmaxDistribution:
        return SoftmaxDistribution(
            self.model(x), beta=self.beta, min_prob=self.min_prob
        )


class FCSoftmaxPolicy(SoftmaxPolicy):
    """Softmax policy on a fully connected network.

    Args:
        n_input_channels: Observation size.
        n_actions: Number of actions (or a ``gymnasium.spaces.Discrete``).
        n_hidden_layers: Number of hidden layers.
        n_hidden_channels: Units per hidden layer.
        beta: Inverse temperature of the softmax.
        nonlinearity: Activation of the hidden layers.
        last_wscale: Scale of the output layer's initial weights.
        min_prob: Floor on each action's probability.

    Example:
        >>> import numpy as np
        >>> pi = FCSoftmaxPolicy(4, 2, n_hidden_layers=1, n_hidden_channels=8)
        >>> pi(np.zeros((3, 4), np.float32)).all_prob.shape
        (3, 2)
    """

    def __init__(
        self,
        n_input_channels: int,
        n_actions: Any,
        n_hidden_layers: int = 0,
        n_hidden_channels: int | None = None,
        beta: float = 1.0,
        nonlinearity: Callable[[Any], Any] = F.relu,
        last_wscale: float = 1.0,
        min_prob: float = 0.0,
    ) -> None:
        self.n_input_channels = n_input_channels
        self.n_actions = discrete_size(type(self).__name__, n_actions)
        self.n_hidden_layers = n_hidden_layers
        self.n_hidden_channels = n_hidden_channels
        model = MLP(
            n_input_channels,
            self.n_actions,
            hidden_sizes(type(self).__name__, n_hidden_layers, n_hidden_channels),
            nonlinearity=nonlinearity,
            last_wscale=last_wscale,
        )
        super().__init__(model=model, beta=beta, min_prob=min_prob)
