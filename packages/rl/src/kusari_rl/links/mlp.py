"""Multi-layer perceptrons (``chainerrl.links.MLP`` / ``MLPBN``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import initializers

__all__ = ["MLP", "MLPBN"]


class MLP(kusari.Chain):
    """Fully connected layers with a nonlinearity between them.

    Args:
        in_size: Input size (None: inferred from the first input).
        out_size: Output size.
        hidden_sizes: Sizes of the hidden layers (may be empty).
        nonlinearity: Activation after each hidden layer.
        last_wscale: Scale of the LeCun-normal init of the output layer
            (small values make initial outputs near zero).

    Example:
        >>> import numpy as np
        >>> mlp = MLP(4, 2, (8, 8))
        >>> mlp(np.zeros((3, 4), dtype=np.float32)).shape
        (3, 2)
    """

    def __init__(
        self,
        in_size: int | None,
        out_size: int,
        hidden_sizes: Sequence[int],
        nonlinearity: Callable[[Any], Any] = F.relu,
        last_wscale: float = 1.0,
    ) -> None:
        super().__init__()
        self.in_size = in_size
        self.out_size = out_size
        self.hidden_sizes = tuple(hidden_sizes)
        self.nonlinearity = nonlinearity
        sizes = (in_size, *self.hidden_sizes)
        with self.init_scope():
            self.hidden_layers = kusari.ChainList(
                *[L.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]
            )
            self.output = L.Linear(
                sizes[-1], out_size, initialW=initializers.LeCunNormal(last_wscale)
            )

    def forward(self, x: Any) -> Any:
        h = x
        for layer in self.hidden_layers:
            h = self.nonlinearity(layer(h))
        return self.output(h)


class MLPBN(kusari.Chain):
    """MLP with batch normalization before each hidden nonlinearity.

    Args:
        normalize_input: Batch-normalize the input too.
        normalize_output: Batch-normalize the output too.
    """

    def __init__(
        self,
        in_size: int,
        out_size: int,
        hidden_sizes: Sequence[int],
        normalize_input: bool = True,
        normalize_output: bool = False,
        nonlinearity: Callable[[Any], Any] = F.relu,
        last_wscale: float = 1.0,
    ) -> None:
        super().__init__()
        self.in_size = in_size
        self.out_size = out_size
        self.hidden_sizes = tuple(hidden_sizes)
        self.nonlinearity = nonlinearity
        self.normalize_input = normalize_input
        self.normalize_output = normalize_output
        sizes = (in_size, *self.hidden_sizes)
        with self.init_scope():
            if normalize_input:
                self.input_bn = L.BatchNormalization(in_size)
            self.hidden_layers = kusari.ChainList(
                *[L.Linear(a, b, nobias=True) for a, b in zip(sizes[:-1], sizes[1:])]
            )
            self.hidden_bns = kusari.ChainList(
                *[L.BatchNormalization(b) for b in self.hidden_sizes]
            )
            self.output = L.Linear(
                sizes[-1], out_size, initialW=initializers.LeCunNormal(last_wscale)
            )
            if normalize_output:
                self.output_bn = L.BatchNormalization(out_size)

    def forward(self, x: Any) -> Any:
        h = self.input_bn(x) if self.normalize_input else x
        for layer, bn in zip(self.hidden_layers, self.hidden_bns):
            h = self.nonlinearity(bn(layer(h)))
        h = self.output(h)
        return self.output_bn(h) if self.normalize_output else h
