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

__all__ = ["DistributionalDuelingDQN", "DuelingDQN", "FCDuelingQFunction"]


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
        return _dueling_combine(self.a_stream(h), self.v_stream(h))


def _dueling_combine(h_a: Any, ys: Any) -> DiscreteActionValue:
    """``V + A - mean(A)`` from advantages ``(B, n)`` and values ``(B, 1)``."""
    mean = F.mean(h_a, axis=1, keepdims=True)
    ya = h_a - F.broadcast_to(mean, h_a.shape)
    return DiscreteActionValue(ya + F.broadcast_to(ys, ya.shape))


def _combine_arrays(adv: Any, value: Any) -> Any:
    """``A - mean_a(A) + V`` on arrays (the one arithmetic of both paths)."""
    mean = adv.sum(axis=1, keepdims=True) * (1.0 / adv.shape[1])
    return (adv - mean.astype(adv.dtype, copy=False)) + value


class _DuelingCombine(kusari.FunctionNode):
    """``Q = A - mean_a(A) + V`` as one node (the composed form is six).

    The map is linear; its gradient is the adjoint map
    ``g -> (g - mean_a(g), sum_a(g))``, itself one node
    (:class:`_DuelingCombineGrad`), whose gradient is this map again. The
    arithmetic is the composed form's (sum times ``1 / n``, then subtract,
    then add), so both give the same numbers.
    """

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (_combine_arrays(*inputs),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return _DuelingCombineGrad().apply(grad_outputs)


class _DuelingCombineGrad(kusari.FunctionNode):
    """The adjoint of :class:`_DuelingCombine`: ``g -> (g - mean(g), sum(g))``."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (g,) = inputs
        total = g.sum(axis=1, keepdims=True)
        # -(sum) times 1 / n, added: the composed form's order of operations.
        return (g + (-total * (1.0 / g.shape[1])).astype(g.dtype, copy=False), total)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        g_adv, g_value = grad_outputs
        if g_adv is None or g_value is None:
            raise NotImplementedError(
                "FCDuelingQFunction: second-order gradients need both outputs' "
                "gradients"
            )
        return _DuelingCombine().apply((g_adv, g_value))


def dueling_combine(adv: Any, value: Any) -> Any:
    """``A - mean_a(A) + V`` for advantages ``(B, n)`` and values ``(B, 1)``."""
    if adv.ndim != 2 or value.shape != (adv.shape[0], 1):
        raise ValueError(
            "dueling_combine: expected advantages (B, n) and values (B, 1), got "
            f"{adv.shape} and {value.shape}"
        )
    (q,) = _DuelingCombine().apply((adv, value))
    return q


class FCDuelingQFunction(kusari.Chain, StateQFunction):
    """Dueling Q-function on a fully connected trunk (vector observations).

    The hidden layers are shared; a value head ``V(s)`` and an advantage
    head ``A(s, a)`` sit on the last of them, and
    ``Q(s, a) = V(s) + A(s, a) - mean_b A(s, b)``. On problems whose action
    values are large and close to each other (CartPole's are all near the
    expected remaining episode length) the greedy action is decided by the
    small advantages, which get a head of their own instead of being the
    difference of two large outputs.

    Args:
        ndim_obs: Observation size (None: inferred from the first input).
        n_actions: Number of actions.
        n_hidden_channels: Units per hidden layer.
        n_hidden_layers: Number of shared hidden layers (at least 1).
        nonlinearity: Hidden activation.
        last_wscale: Init scale (LeCun normal) of both heads.

    Example:
        >>> q = FCDuelingQFunction(4, 2, 16, 2)
        >>> q(np.zeros((3, 4), dtype=np.float32)).q_values.shape
        (3, 2)
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
        if n_hidden_layers < 1:
            raise ValueError(
                "FCDuelingQFunction: n_hidden_layers must be >= 1 (the heads "
                f"share a hidden layer), got {n_hidden_layers}"
            )
        if n_actions < 1:
            raise ValueError(
                f"FCDuelingQFunction: n_actions must be >= 1, got {n_actions}"
            )
        super().__init__()
        self.n_actions = n_actions
        self.nonlinearity = nonlinearity
        sizes = [ndim_obs, *[n_hidden_channels] * n_hidden_layers]
        with self.init_scope():
            self.hidden_layers = kusari.ChainList(
                *[L.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]
            )
            self.a_stream = L.Linear(
                n_hidden_channels,
                n_actions,
                initialW=kusari.initializers.LeCunNormal(last_wscale),
            )
            self.v_stream = L.Linear(
                n_hidden_channels,
                1,
                initialW=kusari.initializers.LeCunNormal(last_wscale),
            )

    def forward(self, x: Any) -> DiscreteActionValue:
        h = x
        for layer in self.hidden_layers:
            h = self.nonlinearity(layer(h))
        return DiscreteActionValue(dueling_combine(self.a_stream(h), self.v_stream(h)))

    def q_values_array(self, x: Any) -> Any:
        """The action values of the batch ``x`` as an array, with no graph.

        For acting and for targets, where nothing is differentiated: the
        same numbers as ``forward(x).q_values.array`` (the same array
        operations: ``Linear``'s ``x @ W.T`` then ``+= b``, ReLU's
        ``maximum``), without a function node per layer. Falls back to
        :meth:`forward` for another nonlinearity or before the first
        layer's lazy initialisation.
        """
        layers = [*self.hidden_layers, self.a_stream, self.v_stream]
        if self.nonlinearity is not F.relu or any(
            layer.W.array is None or layer.b is None for layer in layers
        ):
            with kusari.no_backprop_mode():
                return self.forward(x).q_values.array
        h = x.array if isinstance(x, kusari.Variable) else x
        for layer in self.hidden_layers:
            h = _linear_array(h, layer)
            h = kusari.backend.get_array_module(h).maximum(h, h.dtype.type(0))
        return _combine_arrays(
            _linear_array(h, self.a_stream), _linear_array(h, self.v_stream)
        )


def _linear_array(x: Any, layer: L.Linear) -> Any:
    """``L.Linear``'s forward on arrays (2-D ``x``, a bias, ``x``'s dtype)."""
    y = x @ layer.W.array.T
    if y.dtype != x.dtype:
        y = y.astype(x.dtype)
    b = layer.b
    assert b is not None  # checked by the caller
    y += b.array
    return y


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
