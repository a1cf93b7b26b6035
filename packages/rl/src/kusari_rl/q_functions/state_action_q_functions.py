"""Q-functions of continuous actions: ``(state, action) -> (batch, 1)``.

Used as critics by DDPG, TD3 and SAC. The state and the action are joined
either at the input (``FC*SAQFunction``) or after a first state-only layer
(``FC*LateActionSAQFunction``, the architecture of the DDPG paper).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import initializers
from kusari_rl.links import MLP, MLPBN
from kusari_rl.q_function import StateActionQFunction

__all__ = [
    "FCBNLateActionSAQFunction",
    "FCBNSAQFunction",
    "FCLateActionSAQFunction",
    "FCSAQFunction",
    "SingleModelStateActionQFunction",
]


def _check_sizes(owner: str, n_dim_obs: int, n_dim_action: int, n_layers: int) -> None:
    if n_dim_obs < 1 or n_dim_action < 1:
        raise ValueError(
            f"{owner}: n_dim_obs and n_dim_action must be >= 1, got "
            f"{n_dim_obs} and {n_dim_action}"
        )
    if n_layers < 1:
        raise ValueError(f"{owner}: n_hidden_layers must be >= 1, got {n_layers}")


class SingleModelStateActionQFunction(kusari.Chain, StateActionQFunction):
    """Wrap a link ``model(state, action)`` as a state-action Q-function.

    Args:
        model: Link taking ``(state, action)`` and returning Q-values.
    """

    def __init__(self, model: kusari.Link) -> None:
        super().__init__()
        with self.init_scope():
            self.model = model

    def forward(self, x: Any, a: Any) -> Any:
        return self.model(x, a)


class FCSAQFunction(kusari.ChainList, StateActionQFunction):
    """Fully connected Q-function on the concatenation of state and action.

    Args:
        n_dim_obs: Observation size.
        n_dim_action: Action size.
        n_hidden_channels: Units per hidden layer.
        n_hidden_layers: Number of hidden layers (>= 1).
        nonlinearity: Activation of the hidden layers.
        last_wscale: Scale of the output layer's initial weights.

    Example:
        >>> import numpy as np
        >>> q = FCSAQFunction(3, 1, n_hidden_channels=16, n_hidden_layers=2)
        >>> q(np.zeros((4, 3), np.float32), np.zeros((4, 1), np.float32)).shape
        (4, 1)
    """

    def __init__(
        self,
        n_dim_obs: int,
        n_dim_action: int,
        n_hidden_channels: int,
        n_hidden_layers: int,
        nonlinearity: Callable[[Any], Any] = F.relu,
        last_wscale: float = 1.0,
    ) -> None:
        _check_sizes(type(self).__name__, n_dim_obs, n_dim_action, n_hidden_layers)
        self.n_input_channels = n_dim_obs + n_dim_action
        self.n_hidden_layers = n_hidden_layers
        self.n_hidden_channels = n_hidden_channels
        self.nonlinearity = nonlinearity
        layers = [L.Linear(self.n_input_channels, n_hidden_channels)]
        for _ in range(n_hidden_layers - 1):
            layers.append(L.Linear(n_hidden_channels, n_hidden_channels))
        layers.append(
            L.Linear(
                n_hidden_channels, 1, initialW=initializers.LeCunNormal(last_wscale)
            )
        )
        super().__init__(*layers)
        self.output = layers[-1]

    def forward(self, state: Any, action: Any) -> Any:
        h = F.concat((state, action), axis=1)
        for layer in self[:-1]:
            h = self.nonlinearity(layer(h))
        return self.output(h)


class FCBNSAQFunction(MLPBN, StateActionQFunction):
    """Like :class:`FCSAQFunction`, with batch normalisation (ChainerRL's MLPBN).

    Args:
        n_dim_obs: Observation size.
        n_dim_action: Action size.
        n_hidden_channels: Units per hidden layer.
        n_hidden_layers: Number of hidden layers (>= 1).
        normalize_input: Batch-normalise the concatenated input too.
        nonlinearity: Activation of the hidden layers.
        last_wscale: Scale of the output layer's initial weights.
    """

    def __init__(
        self,
        n_dim_obs: int,
        n_dim_action: int,
        n_hidden_channels: int,
        n_hidden_layers: int,
        normalize_input: bool = True,
        nonlinearity: Callable[[Any], Any] = F.relu,
        last_wscale: float = 1.0,
    ) -> None:
        _check_sizes(type(self).__name__, n_dim_obs, n_dim_action, n_hidden_layers)
        self.n_input_channels = n_dim_obs + n_dim_action
        self.n_hidden_layers = n_hidden_layers
        self.n_hidden_channels = n_hidden_channels
        super().__init__(
            in_size=self.n_input_channels,
            out_size=1,
            hidden_sizes=[n_hidden_channels] * n_hidden_layers,
            normalize_input=normalize_input,
            nonlinearity=nonlinearity,
            last_wscale=last_wscale,
        )

    def forward(self, state: Any, action: Any) -> Any:  # type: ignore[override]
        return super().forward(F.concat((state, action), axis=1))


class FCLateActionSAQFunction(kusari.Chain, StateActionQFunction):
    """Q-function that joins the action after a first state-only layer.

    The architecture of the DDPG paper (https://arxiv.org/abs/1509.02971).

    Args:
        n_dim_obs: Observation size.
        n_dim_action: Action size.
        n_hidden_channels: Units per hidden layer.
        n_hidden_layers: Number of hidden layers (>= 1), the state-only one
            included.
        nonlinearity: Activation of the hidden layers.
        last_wscale: Scale of the output layer's initial weights.
    """

    def __init__(
        self,
        n_dim_obs: int,
        n_dim_action: int,
        n_hidden_channels: int,
        n_hidden_layers: int,
        nonlinearity: Callable[[Any], Any] = F.relu,
        last_wscale: float = 1.0,
    ) -> None:
        _check_sizes(type(self).__name__, n_dim_obs, n_dim_action, n_hidden_layers)
        self.n_input_channels = n_dim_obs + n_dim_action
        self.n_hidden_layers = n_hidden_layers
        self.n_hidden_channels = n_hidden_channels
        self.nonlinearity = nonlinearity
        super().__init__()
        with self.init_scope():
            self.obs_mlp = MLP(n_dim_obs, n_hidden_channels, [])
            self.mlp = MLP(
                n_hidden_channels + n_dim_action,
                1,
                [n_hidden_channels] * (n_hidden_layers - 1),
                nonlinearity=nonlinearity,
                last_wscale=last_wscale,
            )

    def forward(self, state: Any, action: Any) -> Any:
        h = self.nonlinearity(self.obs_mlp(state))
        return self.mlp(F.concat((h, action), axis=1))


class FCBNLateActionSAQFunction(kusari.Chain, StateActionQFunction):
    """:class:`FCLateActionSAQFunction` with a batch-normalised state layer.

    Args:
        n_dim_obs: Observation size.
        n_dim_action: Action size.
        n_hidden_channels: Units per hidden layer.
        n_hidden_layers: Number of hidden layers (>= 1).
        normalize_input: Batch-normalise the observation.
        nonlinearity: Activation of the hidden layers.
        last_wscale: Scale of the output layer's initial weights.
    """

    def __init__(
        self,
        n_dim_obs: int,
        n_dim_action: int,
        n_hidden_channels: int,
        n_hidden_layers: int,
        normalize_input: bool = True,
        nonlinearity: Callable[[Any], Any] = F.relu,
        last_wscale: float = 1.0,
    ) -> None:
        _check_sizes(type(self).__name__, n_dim_obs, n_dim_action, n_hidden_layers)
        self.n_input_channels = n_dim_obs + n_dim_action
        self.n_hidden_layers = n_hidden_layers
        self.n_hidden_channels = n_hidden_channels
        self.normalize_input = normalize_input
        self.nonlinearity = nonlinearity
        super().__init__()
        with self.init_scope():
            self.obs_mlp = MLPBN(
                in_size=n_dim_obs,
                out_size=n_hidden_channels,
                hidden_sizes=[],
                normalize_input=normalize_input,
                normalize_output=True,
            )
            self.mlp = MLP(
                n_hidden_channels + n_dim_action,
                1,
                [n_hidden_channels] * (n_hidden_layers - 1),
                nonlinearity=nonlinearity,
                last_wscale=last_wscale,
            )

    def forward(self, state: Any, action: Any) -> Any:
        h = self.nonlinearity(self.obs_mlp(state))
        return self.mlp(F.concat((h, action), axis=1))
