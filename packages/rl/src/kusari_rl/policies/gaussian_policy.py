"""Gaussian policies for continuous actions (``chainerrl.policies.gaussian_policy``).

The ``*Head`` links turn the output of any network into a distribution; the
``FC*`` policies are complete fully connected policies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import initializers
from kusari_rl.distribution import GaussianDistribution, SquashedGaussianDistribution
from kusari_rl.functions.bound_by_tanh import bound_by_tanh
from kusari_rl.links.mlp import MLP
from kusari_rl.policies._spaces import box_size, hidden_sizes
from kusari_rl.policy import Policy

__all__ = [
    "FCGaussianPolicy",
    "FCGaussianPolicyWithFixedCovariance",
    "FCGaussianPolicyWithStateIndependentCovariance",
    "GaussianHeadWithDiagonalCovariance",
    "GaussianHeadWithFixedCovariance",
    "GaussianHeadWithStateIndependentCovariance",
    "LinearGaussianPolicyWithDiagonalCovariance",
    "LinearGaussianPolicyWithSphericalCovariance",
    "SquashedDiagonalGaussianHead",
]

_VAR_SIZE = {"spherical": lambda n: 1, "diagonal": lambda n: n}


def _var_size(owner: str, var_type: str, action_size: int) -> int:
    if var_type not in _VAR_SIZE:
        raise ValueError(
            f"{owner}: var_type must be 'spherical' or 'diagonal', got {var_type!r}"
        )
    return _VAR_SIZE[var_type](action_size)


def _bounds(
    owner: str, action_size: Any, min_action: Any, max_action: Any, bound_mean: bool
) -> tuple[Any, Any]:
    if hasattr(action_size, "low") and min_action is None and max_action is None:
        min_action, max_action = action_size.low, action_size.high
    if bound_mean and (min_action is None or max_action is None):
        raise ValueError(
            f"{owner}: bound_mean=True needs min_action and max_action; pass them "
            "(or the Box action space), or bound_mean=False"
        )
    lo = None if min_action is None else numpy.asarray(min_action, numpy.float32)
    hi = None if max_action is None else numpy.asarray(max_action, numpy.float32)
    return lo, hi


class GaussianHeadWithStateIndependentCovariance(kusari.Chain):
    """Gaussian whose mean is the input and whose variance is a learned parameter.

    Args:
        action_size: Action size.
        var_type: ``'spherical'`` (one variance) or ``'diagonal'`` (one per
            action dimension).
        var_func: Maps the parameter to a positive variance.
        var_param_init: Initial value of the parameter.
    """

    def __init__(
        self,
        action_size: int,
        var_type: str = "spherical",
        var_func: Callable[[Any], Any] = F.softplus,
        var_param_init: float = 0.0,
    ) -> None:
        super().__init__()
        self.var_func = var_func
        var_size = _var_size(type(self).__name__, var_type, action_size)
        with self.init_scope():
            self.var_param = kusari.Parameter(
                initializers.Constant(var_param_init), shape=(var_size,)
            )

    def forward(self, mean: Any) -> GaussianDistribution:
        var = F.broadcast_to(self.var_func(self.var_param), mean.shape)
        return GaussianDistribution(mean, var)


class GaussianHeadWithDiagonalCovariance(kusari.Chain):
    """Gaussian from an input whose halves are the mean and the pre-variance.

    Args:
        var_func: Maps the second half of the input to positive variances.
    """

    def __init__(self, var_func: Callable[[Any], Any] = F.softplus) -> None:
        super().__init__()
        self.var_func = var_func

    def forward(self, mean_and_var: Any) -> GaussianDistribution:
        if mean_and_var.ndim != 2 or mean_and_var.shape[1] % 2:
            raise ValueError(
                f"{type(self).__name__}: expected input of shape (batch, 2 * "
                f"action_size), got {mean_and_var.shape}"
            )
        mean, pre_var = F.split_axis(mean_and_var, 2, axis=1)
        return GaussianDistribution(mean, self.var_func(pre_var))


class GaussianHeadWithFixedCovariance(kusari.Chain):
    """Gaussian whose mean is the input and whose variance is the constant ``scale``."""

    def __init__(self, scale: float = 1.0) -> None:
        super().__init__()
        self.scale = scale

    def forward(self, mean: Any) -> GaussianDistribution:
        m = mean.array if isinstance(mean, kusari.Variable) else mean
        xp = kusari.backend.get_array_module(m)
        return GaussianDistribution(mean, xp.full(m.shape, self.scale, dtype=m.dtype))


class SquashedDiagonalGaussianHead(kusari.Chain):
    """``tanh``-squashed Gaussian from an input of means and log standard deviations.

    Soft Actor-Critic's policy head: the input ``(batch, 2 * action_size)`` is
    split into ``mean`` and ``log_scale``; ``log_scale`` is clipped to
    ``[log_scale_min, log_scale_max]`` for numerical safety.
    """

    def __init__(self, log_scale_min: float = -20.0, log_scale_max: float = 2.0):
        super().__init__()
        self.log_scale_min = log_scale_min
        self.log_scale_max = log_scale_max

    def forward(self, x: Any) -> SquashedGaussianDistribution:
        if x.ndim != 2 or x.shape[1] % 2:
            raise ValueError(
                f"{type(self).__name__}: expected input of shape (batch, 2 * "
                f"action_size), got {x.shape}"
            )
        mean, log_scale = F.split_axis(x, 2, axis=1)
        log_scale = F.clip(log_scale, self.log_scale_min, self.log_scale_max)
        return SquashedGaussianDistribution(mean, F.exp(2.0 * log_scale))


class FCGaussianPolicy(kusari.Chain, Policy):
    """Gaussian policy whose mean and variance are both outputs of an FC network.

    Args:
        n_input_channels: Observation size.
        action_size: Action size (or a 1-D ``gymnasium.spaces.Box``).
        n_hidden_layers: Number of hidden layers shared by mean and variance.
        n_hidden_channels: Units per hidden layer.
        min_action: Lower bounds (used when ``bound_mean``).
        max_action: Upper bounds (used when ``bound_mean``).
        bound_mean: Squash the mean into the bounds with ``tanh``.
        var_type: ``'spherical'`` or ``'diagonal'``.
        nonlinearity: Activation of the hidden layers.
        mean_wscale: Scale of the mean layer's initial weights.
        var_wscale: Scale of the variance layer's initial weights.
        var_bias: Initial bias of the variance layer.
        min_var: Lower bound added to the variance.
    """

    def __init__(
        self,
        n_input_channels: int,
        action_size: Any,
        n_hidden_layers: int = 0,
        n_hidden_channels: int | None = None,
        min_action: Any = None,
        max_action: Any = None,
        bound_mean: bool = False,
        var_type: str = "spherical",
        nonlinearity: Callable[[Any], Any] = F.relu,
        mean_wscale: float = 1.0,
        var_wscale: float = 1.0,
        var_bias: float = 0.0,
        min_var: float = 0.0,
    ) -> None:
        super().__init__()
        name = type(self).__name__
        self.min_action, self.max_action = _bounds(
            name, action_size, min_action, max_action, bound_mean
        )
        self.action_size = box_size(name, action_size)
        self.bound_mean = bound_mean
        self.nonlinearity = nonlinearity
        self.min_var = min_var
        var_size = _var_size(name, var_type, self.action_size)
        hidden = hidden_sizes(name, n_hidden_layers, n_hidden_channels)
        in_size = hidden[-1] if hidden else n_input_channels
        with self.init_scope():
            self.hidden_layers = kusari.ChainList(
                *[L.Linear(i, o) for i, o in zip([n_input_channels, *hidden], hidden)]
            )
            self.mean_layer = L.Linear(
                in_size,
                self.action_size,
                initialW=initializers.LeCunNormal(mean_wscale),
            )
            self.var_layer = L.Linear(
                in_size,
                var_size,
                initialW=initializers.LeCunNormal(var_wscale),
                initial_bias=var_bias,
            )

    def compute_mean_and_var(self, x: Any) -> tuple[Any, Any]:
        h = x
        for layer in self.hidden_layers:
            h = self.nonlinearity(layer(h))
        mean = self.mean_layer(h)
        if self.bound_mean:
            mean = bound_by_tanh(mean, self.min_action, self.max_action)
        var = F.broadcast_to(F.softplus(self.var_layer(h)), mean.shape) + self.min_var
        return mean, var

    def forward(self, x: Any) -> GaussianDistribution:
        mean, var = self.compute_mean_and_var(x)
        return GaussianDistribution(mean, var)


class _FCMeanPolicy(kusari.Chain, Policy):
    """Shared body of the policies whose network outputs only the mean."""

    def __init__(
        self,
        n_input_channels: int,
        action_size: Any,
        n_hidden_layers: int,
        n_hidden_channels: int | None,
        min_action: Any,
        max_action: Any,
        bound_mean: bool,
        nonlinearity: Callable[[Any], Any],
        mean_wscale: float,
    ) -> None:
        super().__init__()
        name = type(self).__name__
        self.min_action, self.max_action = _bounds(
            name, action_size, min_action, max_action, bound_mean
        )
        self.action_size = box_size(name, action_size)
        self.bound_mean = bound_mean
        with self.init_scope():
            self.mean = MLP(
                n_input_channels,
                self.action_size,
                hidden_sizes(name, n_hidden_layers, n_hidden_channels),
                nonlinearity=nonlinearity,
                last_wscale=mean_wscale,
            )

    def _mean(self, x: Any) -> Any:
        mean = self.mean(x)
        if self.bound_mean:
            mean = bound_by_tanh(mean, self.min_action, self.max_action)
        return mean


class FCGaussianPolicyWithStateIndependentCovariance(_FCMeanPolicy):
    """Gaussian policy: FC network for the mean, a learned state-independent variance.

    PPO's and TRPO's usual policy for MuJoCo-style tasks.

    Args:
        n_input_channels: Observation size.
        action_size: Action size (or a 1-D ``gymnasium.spaces.Box``).
        n_hidden_layers: Number of hidden layers.
        n_hidden_channels: Units per hidden layer.
        min_action: Lower bounds (used when ``bound_mean``).
        max_action: Upper bounds (used when ``bound_mean``).
        bound_mean: Squash the mean into the bounds with ``tanh``.
        var_type: ``'spherical'`` or ``'diagonal'``.
        nonlinearity: Activation of the hidden layers.
        mean_wscale: Scale of the mean layer's initial weights.
        var_func: Maps the variance parameter to a positive variance.
        var_param_init: Initial value of the variance parameter.
    """

    def __init__(
        self,
        n_input_channels: int,
        action_size: Any,
        n_hidden_layers: int = 0,
        n_hidden_channels: int | None = None,
        min_action: Any = None,
        max_action: Any = None,
        bound_mean: bool = False,
        var_type: str = "spherical",
        nonlinearity: Callable[[Any], Any] = F.relu,
        mean_wscale: float = 1.0,
        var_func: Callable[[Any], Any] = F.softplus,
        var_param_init: float = 0.0,
    ) -> None:
        super().__init__(
            n_input_channels,
            action_size,
            n_hidden_layers,
            n_hidden_channels,
            min_action,
            max_action,
            bound_mean,
            nonlinearity,
            mean_wscale,
        )
        with self.init_scope():
            self.head = GaussianHeadWithStateIndependentCovariance(
                self.action_size, var_type, var_func, var_param_init
            )

    def forward(self, x: Any) -> GaussianDistribution:
        return self.head(self._mean(x))


class FCGaussianPolicyWithFixedCovariance(_FCMeanPolicy):
    """Gaussian policy: FC network for the mean, constant variance ``var``."""

    def __init__(
        self,
        n_input_channels: int,
        action_size: Any,
        var: float,
        n_hidden_layers: int = 0,
        n_hidden_channels: int | None = None,
        min_action: Any = None,
        max_action: Any = None,
        bound_mean: bool = False,
        nonlinearity: Callable[[Any], Any] = F.relu,
        mean_wscale: float = 1.0,
    ) -> None:
        super().__init__(
            n_input_channels,
            action_size,
            n_hidden_layers,
            n_hidden_channels,
            min_action,
            max_action,
            bound_mean,
            nonlinearity,
            mean_wscale,
        )
        self.head = GaussianHeadWithFixedCovariance(var)

    def forward(self, x: Any) -> GaussianDistribution:
        return self.head(self._mean(x))


class LinearGaussianPolicyWithDiagonalCovariance(FCGaussianPolicy):
    """Linear Gaussian policy with a state-dependent diagonal covariance."""

    def __init__(self, n_input_channels: int, action_size: Any) -> None:
        super().__init__(n_input_channels, action_size, var_type="diagonal")


class LinearGaussianPolicyWithSphericalCovariance(FCGaussianPolicy):
    """Linear Gaussian policy with a state-dependent spherical covariance."""

    def __init__(self, n_input_channels: int, action_size: Any) -> None:
        super().__init__(n_input_channels, action_size, var_type="spherical")
