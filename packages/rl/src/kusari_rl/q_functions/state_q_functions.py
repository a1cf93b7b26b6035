"""Q-functions of states for discrete (and quadratic continuous) actions."""

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
    QuadraticActionValue,
)
from kusari_rl.links.mlp import MLP
from kusari_rl.links.sequence import Sequence
from kusari_rl.q_function import StateQFunction

__all__ = [
    "DistributionalFCStateQFunctionWithDiscreteAction",
    "DistributionalSingleModelStateQFunctionWithDiscreteAction",
    "FCQuadraticStateQFunction",
    "FCStateQFunctionWithDiscreteAction",
    "SingleModelStateQFunctionWithDiscreteAction",
    "scale_by_tanh",
]


def scale_by_tanh(x: Any, low: Any, high: Any) -> Any:
    """Map ``x`` into ``(low, high)`` with tanh."""
    xp = kusari.backend.get_array_module(x)
    scale = xp.asarray((np.asarray(high) - np.asarray(low)) / 2, dtype=x.dtype)
    mean = xp.asarray((np.asarray(high) + np.asarray(low)) / 2, dtype=x.dtype)
    return F.tanh(x) * scale + mean


class SingleModelStateQFunctionWithDiscreteAction(kusari.Chain, StateQFunction):
    """Q-function given by one model returning ``(batch, n_actions)`` values."""

    def __init__(self, model: kusari.Link) -> None:
        super().__init__()
        with self.init_scope():
            self.model = model

    def forward(self, x: Any) -> DiscreteActionValue:
        return DiscreteActionValue(self.model(x))


class FCStateQFunctionWithDiscreteAction(SingleModelStateQFunctionWithDiscreteAction):
    """Fully connected Q-function for discrete actions.

    Args:
        ndim_obs: Observation size (None: inferred).
        n_actions: Number of actions.
        n_hidden_channels: Units per hidden layer.
        n_hidden_layers: Number of hidden layers.
        nonlinearity: Hidden activation.
        last_wscale: Init scale of the output layer.

    Example:
        >>> q = FCStateQFunctionWithDiscreteAction(4, 2, 16, 2)
        >>> q(np.zeros((1, 4), dtype=np.float32)).q_values.shape
        (1, 2)
    """

    def __init__(
        self,
        ndim_obs: int | None,
        n_actions: int,
        n_hidden_channels: int,
        n_hidden_layers: int,
        nonlinearity: Callable[[Any], Any] = F.relu,
        last_wscale: float = 1.0,
    ) -> None:
        super().__init__(
            MLP(
                ndim_obs,
                n_actions,
                [n_hidden_channels] * n_hidden_layers,
                nonlinearity=nonlinearity,
                last_wscale=last_wscale,
            )
        )


class DistributionalSingleModelStateQFunctionWithDiscreteAction(
    kusari.Chain, StateQFunction
):
    """Distributional Q-function from a model returning ``(batch, n_actions,
    n_atoms)`` probabilities over the support ``z_values``."""

    z_values: Any

    def __init__(self, model: kusari.Link, z_values: Any) -> None:
        super().__init__()
        with self.init_scope():
            self.model = model
        self.add_persistent("z_values", np.asarray(z_values, dtype=np.float32))

    def forward(self, x: Any) -> DistributionalDiscreteActionValue:
        return DistributionalDiscreteActionValue(self.model(x), self.z_values)


class DistributionalFCStateQFunctionWithDiscreteAction(
    DistributionalSingleModelStateQFunctionWithDiscreteAction
):
    """Fully connected categorical (C51) Q-function.

    Args:
        n_atoms: Support size; the support is ``linspace(v_min, v_max, n_atoms)``.
    """

    def __init__(
        self,
        ndim_obs: int | None,
        n_actions: int,
        n_atoms: int,
        v_min: float,
        v_max: float,
        n_hidden_channels: int,
        n_hidden_layers: int,
        nonlinearity: Callable[[Any], Any] = F.relu,
        last_wscale: float = 1.0,
    ) -> None:
        if not v_min < v_max or n_atoms < 2:
            raise ValueError(
                "DistributionalFCStateQFunctionWithDiscreteAction: need v_min < v_max "
                f"and n_atoms >= 2, got v_min={v_min}, v_max={v_max}, n_atoms={n_atoms}"
            )
        z_values = np.linspace(v_min, v_max, num=n_atoms, dtype=np.float32)
        model = Sequence(
            MLP(
                ndim_obs,
                n_actions * n_atoms,
                [n_hidden_channels] * n_hidden_layers,
                nonlinearity=nonlinearity,
                last_wscale=last_wscale,
            ),
            lambda h: F.reshape(h, (-1, n_actions, n_atoms)),
            lambda h: F.softmax(h, axis=2),
        )
        super().__init__(model, z_values)


class FCQuadraticStateQFunction(kusari.Chain, StateQFunction):
    """NAF Q-function: ``Q = V(s) - 0.5 (a - mu(s))^T P(s) (a - mu(s))``.

    ``P = L L^T`` with ``L`` lower-triangular with a positive (exp) diagonal.

    Args:
        n_input_channels: Observation size.
        n_dim_action: Action size.
        n_hidden_channels, n_hidden_layers: Shared torso.
        action_space: Gymnasium Box of the actions (bounds mu when
            ``scale_mu``).
        scale_mu: Squash ``mu`` into the action bounds with tanh.
    """

    def __init__(
        self,
        n_input_channels: int,
        n_dim_action: int,
        n_hidden_channels: int,
        n_hidden_layers: int,
        action_space: Any,
        scale_mu: bool = True,
    ) -> None:
        super().__init__()
        self.n_input_channels = n_input_channels
        self.n_dim_action = n_dim_action
        self.action_space = action_space
        self.scale_mu = scale_mu
        self._tril = np.tril_indices(n_dim_action)
        self._diag = np.flatnonzero(self._tril[0] == self._tril[1])
        with self.init_scope():
            self.hidden_layers = MLP(
                n_input_channels,
                n_hidden_channels,
                [n_hidden_channels] * max(n_hidden_layers - 1, 0),
            )
            self.v = L.Linear(n_hidden_channels, 1)
            self.mu = L.Linear(n_hidden_channels, n_dim_action)
            self.mat_diag_offdiag = L.Linear(n_hidden_channels, len(self._tril[0]))

    def forward(self, state: Any) -> QuadraticActionValue:
        h = F.relu(self.hidden_layers(state))
        v = self.v(h)
        mu = self.mu(h)
        if self.scale_mu:
            mu = scale_by_tanh(mu, self.action_space.low, self.action_space.high)
        n = self.n_dim_action
        batch = h.shape[0]
        entries = self.mat_diag_offdiag(h)  # (B, n(n+1)/2)
        xp = self.xp
        is_diag = xp.zeros(entries.shape[1], dtype=bool)
        is_diag[self._diag] = True
        # Positive diagonal keeps P = L L^T positive definite.
        entries = F.where(
            xp.broadcast_to(is_diag, entries.shape), F.exp(entries), entries
        )
        # Scatter the entries into lower-triangular matrices with a one-hot
        # matmul (differentiable, no index assignment).
        scatter = xp.zeros((entries.shape[1], n * n), dtype=entries.dtype)
        scatter[xp.arange(entries.shape[1]), self._tril[0] * n + self._tril[1]] = 1
        lower = F.reshape(F.matmul(entries, scatter), (batch, n, n))
        mat = F.matmul(lower, lower, transb=True)
        return QuadraticActionValue(
            mu,
            mat,
            v,
            min_action=self.action_space.low if not self.scale_mu else None,
            max_action=self.action_space.high if not self.scale_mu else None,
        )
