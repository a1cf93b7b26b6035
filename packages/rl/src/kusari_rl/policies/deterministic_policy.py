"""Deterministic policies for continuous actions (DDPG, TD3)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

import kusari
import kusari.functions as F
from kusari_rl.distribution import ContinuousDeterministicDistribution
from kusari_rl.functions.bound_by_tanh import bound_by_tanh
from kusari_rl.links.mlp import MLP, MLPBN
from kusari_rl.policies._spaces import box_size
from kusari_rl.policy import Policy

__all__ = [
    "ContinuousDeterministicPolicy",
    "FCBNDeterministicPolicy",
    "FCDeterministicPolicy",
]


class ContinuousDeterministicPolicy(kusari.Chain, Policy):
    """Wrap a link that outputs actions as a point-mass policy.

    Args:
        model: Link mapping observations to ``(batch, action_size)`` actions.
        model_call: ``model_call(model, x)`` to use instead of ``model(x)``.
        action_filter: Function applied to the model's output (e.g. a bound).
    """

    def __init__(
        self,
        model: kusari.Link,
        model_call: Callable[[Any, Any], Any] | None = None,
        action_filter: Callable[[Any], Any] | None = None,
    ) -> None:
        super().__init__()
        self.model_call = model_call
        self.action_filter = action_filter
        with self.init_scope():
            self.model = model

    def forward(self, x: Any) -> ContinuousDeterministicDistribution:
        if self.model_call is not None:
            h = self.model_call(self.model, x)
        else:
            h = self.model(x)
        if self.action_filter is not None:
            h = self.action_filter(h)
        return ContinuousDeterministicDistribution(h)


class FCDeterministicPolicy(ContinuousDeterministicPolicy):
    """Fully connected deterministic policy, optionally bounded by ``tanh``.

    Args:
        n_input_channels: Observation size.
        n_hidden_layers: Number of hidden layers.
        n_hidden_channels: Units per hidden layer.
        action_size: Action size (or a 1-D ``gymnasium.spaces.Box``, whose
            ``low``/``high`` then serve as ``min_action``/``max_action``).
        min_action: Lower action bounds (array) used when ``bound_action``.
        max_action: Upper action bounds (array) used when ``bound_action``.
        bound_action: Squash actions into ``[min_action, max_action]``.
        nonlinearity: Activation of the hidden layers.
        last_wscale: Scale of the output layer's initial weights.

    Example:
        >>> import numpy as np
        >>> pi = FCDeterministicPolicy(3, 1, 8, 2, min_action=-np.ones(2),
        ...                            max_action=np.ones(2))
        >>> a = pi(np.zeros((5, 3), np.float32)).sample().array
        >>> a.shape, bool((abs(a) <= 1).all())
        ((5, 2), True)
    """

    def __init__(
        self,
        n_input_channels: int,
        n_hidden_layers: int,
        n_hidden_channels: int,
        action_size: Any,
        min_action: Any = None,
        max_action: Any = None,
        bound_action: bool = True,
        nonlinearity: Callable[[Any], Any] = F.relu,
        last_wscale: float = 1.0,
    ) -> None:
        name = type(self).__name__
        if hasattr(action_size, "low") and min_action is None and max_action is None:
            min_action, max_action = action_size.low, action_size.high
        self.n_input_channels = n_input_channels
        self.n_hidden_layers = n_hidden_layers
        self.n_hidden_channels = n_hidden_channels
        self.action_size = box_size(name, action_size)
        self.bound_action = bound_action
        self.min_action = None if min_action is None else numpy.asarray(min_action)
        self.max_action = None if max_action is None else numpy.asarray(max_action)
        action_filter: Callable[[Any], Any] | None = None
        if bound_action:
            if self.min_action is None or self.max_action is None:
                raise ValueError(
                    f"{name}: bound_action=True needs min_action and max_action; "
                    "pass them (or the Box action space), or bound_action=False"
                )
            action_filter = self._bound
        model = MLP(
            n_input_channels,
            self.action_size,
            [n_hidden_channels] * n_hidden_layers,
            nonlinearity=nonlinearity,
            last_wscale=last_wscale,
        )
        super().__init__(model=model, action_filter=action_filter)

    def _bound(self, x: Any) -> Any:
        return bound_by_tanh(x, self.min_action, self.max_action)


class FCBNDeterministicPolicy(ContinuousDeterministicPolicy):
    """:class:`FCDeterministicPolicy` with batch normalization (``MLPBN``).

    Args:
        n_input_channels: Observation size.
        n_hidden_layers: Number of hidden layers.
        n_hidden_channels: Units per hidden layer.
        action_size: Action size (or a 1-D ``gymnasium.spaces.Box``).
        min_action: Lower action bounds used when ``bound_action``.
        max_action: Upper action bounds used when ``bound_action``.
        bound_action: Squash actions into ``[min_action, max_action]``.
        normalize_input: Batch-normalize the observations too.
        nonlinearity: Activation of the hidden layers.
        last_wscale: Scale of the output layer's initial weights.
    """

    def __init__(
        self,
        n_input_channels: int,
        n_hidden_layers: int,
        n_hidden_channels: int,
        action_size: Any,
        min_action: Any = None,
        max_action: Any = None,
        bound_action: bool = True,
        normalize_input: bool = True,
        nonlinearity: Callable[[Any], Any] = F.relu,
        last_wscale: float = 1.0,
    ) -> None:
        name = type(self).__name__
        if hasattr(action_size, "low") and min_action is None and max_action is None:
            min_action, max_action = action_size.low, action_size.high
        self.action_size = box_size(name, action_size)
        self.min_action = None if min_action is None else numpy.asarray(min_action)
        self.max_action = None if max_action is None else numpy.asarray(max_action)
        self.bound_action = bound_action
        action_filter: Callable[[Any], Any] | None = None
        if bound_action:
            if self.min_action is None or self.max_action is None:
                raise ValueError(
                    f"{name}: bound_action=True needs min_action and max_action; "
                    "pass them (or the Box action space), or bound_action=False"
                )
            action_filter = self._bound
        model = MLPBN(
            n_input_channels,
            self.action_size,
            [n_hidden_channels] * n_hidden_layers,
            normalize_input=normalize_input,
            nonlinearity=nonlinearity,
            last_wscale=last_wscale,
        )
        super().__init__(model=model, action_filter=action_filter)

    def _bound(self, x: Any) -> Any:
        return bound_by_tanh(x, self.min_action, self.max_action)
