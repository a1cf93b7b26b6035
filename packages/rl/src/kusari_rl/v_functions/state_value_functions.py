"""V-functions built from one link, and the fully connected one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import kusari
import kusari.functions as F
from kusari_rl.links.mlp import MLP
from kusari_rl.policies._spaces import hidden_sizes
from kusari_rl.v_function import StateValueFunction

__all__ = ["FCVFunction", "SingleModelStateValueFunction"]


class SingleModelStateValueFunction(kusari.Chain, StateValueFunction):
    """V-function whose value is ``model(x)`` (shape ``(batch, 1)``)."""

    def __init__(self, model: kusari.Link) -> None:
        super().__init__()
        with self.init_scope():
            self.model = model

    def forward(self, x: Any) -> Any:
        return self.model(x)


class FCVFunction(SingleModelStateValueFunction):
    """Fully connected V-function.

    Args:
        n_input_channels: Observation size.
        n_hidden_layers: Number of hidden layers.
        n_hidden_channels: Units per hidden layer.
        nonlinearity: Activation of the hidden layers.
        last_wscale: Scale of the output layer's initial weights.

    Example:
        >>> import numpy as np
        >>> v = FCVFunction(4, n_hidden_layers=2, n_hidden_channels=8)
        >>> v(np.zeros((3, 4), np.float32)).shape
        (3, 1)
    """

    def __init__(
        self,
        n_input_channels: int,
        n_hidden_layers: int = 0,
        n_hidden_channels: int | None = None,
        nonlinearity: Callable[[Any], Any] = F.relu,
        last_wscale: float = 1.0,
    ) -> None:
        self.n_input_channels = n_input_channels
        self.n_hidden_layers = n_hidden_layers
        self.n_hidden_channels = n_hidden_channels
        super().__init__(
            MLP(
                n_input_channels,
                1,
                hidden_sizes("FCVFunction", n_hidden_layers, n_hidden_channels),
                nonlinearity=nonlinearity,
                last_wscale=last_wscale,
            )
        )
