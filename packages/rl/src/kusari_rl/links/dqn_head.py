"""Convolutional torsos of the DQN papers (Atari, 84x84 frames)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import kusari
import kusari.functions as F
import kusari.links as L

__all__ = ["NIPSDQNHead", "NatureDQNHead"]


class _NumberedHead(kusari.Chain):
    # Children are named '0', '1', ... like a ChainList, but live in a Chain
    # so that to_factorized_noisy can swap them through Chain's public API.
    def __init__(
        self, layers: list[kusari.Link], activation: Callable[[Any], Any]
    ) -> None:
        super().__init__()
        self.activation = activation
        self.n_layers = len(layers)
        for i, layer in enumerate(layers):
            self.add_link(str(i), layer)

    def __getitem__(self, i: Any) -> Any:
        return getattr(self, str(i))

    def __len__(self) -> int:
        return self.n_layers

    def forward(self, state: Any) -> Any:
        h = state
        for i in range(self.n_layers):
            h = self.activation(getattr(self, str(i))(h))
        return h


class NatureDQNHead(_NumberedHead):
    """Nature DQN (Mnih et al., 2015): 3 convolutions and a 512-unit layer.

    Args:
        n_input_channels: Stacked frames (4).
        n_output_channels: Units of the final layer.
        activation: Applied after every layer.
        bias: Initial bias of every layer.
    """

    def __init__(
        self,
        n_input_channels: int = 4,
        n_output_channels: int = 512,
        activation: Callable[[Any], Any] = F.relu,
        bias: float = 0.1,
    ) -> None:
        super().__init__(
            [
                L.Convolution2D(n_input_channels, 32, 8, stride=4, initial_bias=bias),
                L.Convolution2D(32, 64, 4, stride=2, initial_bias=bias),
                L.Convolution2D(64, 64, 3, stride=1, initial_bias=bias),
                L.Linear(3136, n_output_channels, initial_bias=bias),
            ],
            activation,
        )
        self.n_input_channels = n_input_channels
        self.n_output_channels = n_output_channels


class NIPSDQNHead(_NumberedHead):
    """NIPS DQN (Mnih et al., 2013): 2 convolutions and a 256-unit layer."""

    def __init__(
        self,
        n_input_channels: int = 4,
        n_output_channels: int = 256,
        activation: Callable[[Any], Any] = F.relu,
        bias: float = 0.1,
    ) -> None:
        super().__init__(
            [
                L.Convolution2D(n_input_channels, 16, 8, stride=4, initial_bias=bias),
                L.Convolution2D(16, 32, 4, stride=2, initial_bias=bias),
                L.Linear(2592, n_output_channels, initial_bias=bias),
            ],
            activation,
        )
        self.n_input_channels = n_input_channels
        self.n_output_channels = n_output_channels
