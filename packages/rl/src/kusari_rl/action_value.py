"""Action values: what Q-functions return (``chainerrl.action_value``).

Each class wraps the network output for a batch and derives greedy actions,
their values and the values of given actions lazily (computed once, cached).
"""

from __future__ import annotations

from abc import ABCMeta, abstractmethod
from collections.abc import Callable
from functools import cached_property
from typing import Any

import numpy as np

import kusari
import kusari.functions as F
from kusari import Variable

__all__ = [
    "ActionValue",
    "DiscreteActionValue",
    "DistributionalDiscreteActionValue",
    "QuadraticActionValue",
    "QuantileDiscreteActionValue",
    "SingleActionValue",
]


def _as_variable(x: Any) -> Variable:
    return x if isinstance(x, Variable) else Variable(x)


class ActionValue(metaclass=ABCMeta):
    """Values of actions for a batch of states."""

    @property
    @abstractmethod
    def greedy_actions(self) -> Variable:
        """Actions maximising the value, one per batch element."""

    @property
    @abstractmethod
    def max(self) -> Variable:
        """Values of the greedy actions."""

    @abstractmethod
    def evaluate_actions(self, actions: Any) -> Variable:
        """Values of the given actions."""

    @property
    def params(self) -> tuple[Variable, ...]:
        """The learnable-parameter-dependent variables this value is built from."""
        return ()

    @abstractmethod
    def __getitem__(self, i: Any) -> ActionValue:
        """The action value of a slice of the batch."""


class DiscreteActionValue(ActionValue):
    """Q-values of a finite action set: array of shape ``(batch, n_actions)``.

    Example:
        >>> av = DiscreteActionValue(np.array([[1., 3., 2.]], dtype=np.float32))
        >>> av.greedy_actions.array.tolist(), av.max.array.tolist()
        ([1], [3.0])
    """

    def __init__(
        self, q_values: Any, q_values_formatter: Callable[[Any], Any] = lambda x: x
    ) -> None:
        q_values = _as_variable(q_values)
        if q_values.ndim != 2:
            raise ValueError(
                "DiscreteActionValue: q_values must have shape (batch, n_actions), "
                f"got {q_values.shape}"
            )
        self.q_values = q_values
        self.xp = kusari.backend.get_array_module(q_values.array)
        self.n_actions = q_values.shape[1]
        self.q_values_formatter = q_values_formatter

    @cached_property
    def greedy_actions(self) -> Variable:
        return Variable(self.q_values.array.argmax(axis=1).astype(np.int32))

    @cached_property
    def max(self) -> Variable:
        return F.select_item(self.q_values, self.greedy_actions.array)

    def evaluate_actions(self, actions: Any) -> Variable:
        actions = actions.array if isinstance(actions, Variable) else actions
        return F.select_item(self.q_values, self.xp.asarray(actions, dtype=np.int32))

    def compute_advantage(self, actions: Any) -> Variable:
        """``Q(s, a) - max_b Q(s, b)`` (used by persistent advantage learning)."""
        return self.evaluate_actions(actions) - self.max

    def compute_double_advantage(self, actions: Any, argmax_actions: Any) -> Variable:
        """``Q(s, a) - Q(s, argmax_actions)``."""
        return self.evaluate_actions(actions) - self.evaluate_actions(argmax_actions)

    def compute_expectation(self, beta: float) -> Variable:
        """Expected value under the Boltzmann policy ``softmax(beta Q)``."""
        return F.sum(F.softmax(beta * self.q_values) * self.q_values, axis=1)

    @property
    def params(self) -> tuple[Variable, ...]:
        return (self.q_values,)

    def __getitem__(self, i: Any) -> DiscreteActionValue:
        return DiscreteActionValue(self.q_values[i], self.q_values_formatter)

    def __repr__(self) -> str:
        q = kusari.backend.CpuDevice().send(self.q_values.array)
        return (
            f"DiscreteActionValue greedy_actions:{q.argmax(axis=1)} "
            f"q_values:{self.q_values_formatter(q)}"
        )


class DistributionalDiscreteActionValue(ActionValue):
    """Return distributions over a fixed support (categorical DQN).

    Args:
        q_dist: Probabilities, shape ``(batch, n_actions, n_atoms)``.
        z_values: Support of the distributions, shape ``(n_atoms,)``.
    """

    def __init__(
        self,
        q_dist: Any,
        z_values: Any,
        q_values_formatter: Callable[[Any], Any] = lambda x: x,
    ) -> None:
        q_dist = _as_variable(q_dist)
        if (
            q_dist.ndim != 3
            or z_values.ndim != 1
            or q_dist.shape[2] != z_values.shape[0]
        ):
            raise ValueError(
                "DistributionalDiscreteActionValue: expected q_dist (batch, n_actions, "
                f"n_atoms) and z_values (n_atoms,), got {q_dist.shape} and "
                f"{z_values.shape}"
            )
        self.q_dist = q_dist
        self.z_values = z_values
        self.xp = kusari.backend.get_array_module(q_dist.array)
        self.n_actions = q_dist.shape[1]
        self.n_atoms = q_dist.shape[2]
        self.q_values_formatter = q_values_formatter

    @cached_property
    def q_values(self) -> Variable:
        z = self.z_values.astype(self.q_dist.dtype, copy=False)
        return F.sum(self.q_dist * F.broadcast_to(z, self.q_dist.shape), axis=2)

    @cached_property
    def greedy_actions(self) -> Variable:
        return Variable(self.q_values.array.argmax(axis=1).astype(np.int32))

    @cached_property
    def max(self) -> Variable:
        return F.select_item(self.q_values, self.greedy_actions.array)

    def _select(self, actions: Any) -> Variable:
        """``q_dist[i, actions[i], :]`` for each i, differentiably."""
        actions = actions.array if isinstance(actions, Variable) else actions
        actions = self.xp.asarray(actions, dtype=np.int64)
        mask = self.xp.zeros(
            (self.q_dist.shape[0], self.n_actions, 1), dtype=self.q_dist.dtype
        )
        mask[self.xp.arange(self.q_dist.shape[0]), actions, 0] = 1
        return F.sum(self.q_dist * F.broadcast_to(mask, self.q_dist.shape), axis=1)

    @cached_property
    def max_as_distribution(self) -> Variable:
        """Distributions of the greedy actions, shape ``(batch, n_atoms)``."""
        return self._select(self.greedy_actions.array)

    def evaluate_actions_as_distribution(self, actions: Any) -> Variable:
        return self._select(actions)

    def evaluate_actions(self, actions: Any) -> Variable:
        actions = actions.array if isinstance(actions, Variable) else actions
        return F.select_item(self.q_values, self.xp.asarray(actions, dtype=np.int32))

    def compute_advantage(self, actions: Any) -> Variable:
        return self.evaluate_actions(actions) - self.max

    def compute_double_advantage(self, actions: Any, argmax_actions: Any) -> Variable:
        return self.evaluate_actions(actions) - self.evaluate_actions(argmax_actions)

    def compute_expectation(self, beta: float) -> Variable:
        return F.sum(F.softmax(beta * self.q_values) * self.q_values, axis=1)

    @property
    def params(self) -> tuple[Variable, ...]:
        return (self.q_dist,)

    def __getitem__(self, i: Any) -> DistributionalDiscreteActionValue:
        return DistributionalDiscreteActionValue(
            self.q_dist[i], self.z_values, self.q_values_formatter
        )


class QuantileDiscreteActionValue(DiscreteActionValue):
    """Quantiles of returns (IQN): shape ``(batch, n_taus, n_actions)``.

    The Q-value of an action is the mean of its quantiles.
    """

    def __init__(
        self, quantiles: Any, q_values_formatter: Callable[[Any], Any] = lambda x: x
    ) -> None:
        quantiles = _as_variable(quantiles)
        if quantiles.ndim != 3:
            raise ValueError(
                "QuantileDiscreteActionValue: quantiles must have shape (batch, "
                f"n_taus, n_actions), got {quantiles.shape}"
            )
        self.quantiles = quantiles
        super().__init__(F.mean(quantiles, axis=1), q_values_formatter)

    def evaluate_actions_as_quantiles(self, actions: Any) -> Variable:
        """Quantiles of the given actions, shape ``(batch, n_taus)``."""
        actions = actions.array if isinstance(actions, Variable) else actions
        actions = self.xp.asarray(actions, dtype=np.int64)
        n = self.quantiles.shape[0]
        mask = self.xp.zeros((n, 1, self.n_actions), dtype=self.quantiles.dtype)
        mask[self.xp.arange(n), 0, actions] = 1
        return F.sum(
            self.quantiles * F.broadcast_to(mask, self.quantiles.shape), axis=2
        )

    @property
    def params(self) -> tuple[Variable, ...]:
        return (self.quantiles,)

    def __getitem__(self, i: Any) -> QuantileDiscreteActionValue:
        return QuantileDiscreteActionValue(self.quantiles[i], self.q_values_formatter)


class QuadraticActionValue(ActionValue):
    """``Q(s, a) = v(s) - 0.5 (a - mu(s))^T P(s) (a - mu(s))`` (NAF).

    Args:
        mu: Greedy actions, shape ``(batch, action_size)``.
        mat: Positive-definite matrices ``P``, shape ``(batch, n, n)``.
        v: State values, shape ``(batch, 1)``.
        min_action, max_action: Clip greedy actions into this box.
    """

    def __init__(
        self, mu: Any, mat: Any, v: Any, min_action: Any = None, max_action: Any = None
    ) -> None:
        self.mu = _as_variable(mu)
        self.mat = _as_variable(mat)
        self.v = _as_variable(v)
        self.xp = kusari.backend.get_array_module(self.mu.array)
        self.min_action = min_action
        self.max_action = max_action
        self.batch_size = self.mu.shape[0]

    @cached_property
    def greedy_actions(self) -> Variable:
        a = self.mu
        if self.min_action is not None or self.max_action is not None:
            lo = (
                self.xp.asarray(self.min_action, dtype=a.dtype)
                if self.min_action is not None
                else None
            )
            hi = (
                self.xp.asarray(self.max_action, dtype=a.dtype)
                if self.max_action is not None
                else None
            )
            a = Variable(self.xp.clip(a.array, lo, hi))
        return a

    @cached_property
    def max(self) -> Variable:
        if self.min_action is None and self.max_action is None:
            return F.reshape(self.v, (self.batch_size,))
        return self.evaluate_actions(self.greedy_actions)

    def evaluate_actions(self, actions: Any) -> Variable:
        u = _as_variable(actions) - self.mu
        u = F.expand_dims(u, 2)  # (B, n, 1)
        adv = -0.5 * F.matmul(F.matmul(u, self.mat, transa=True), u)  # (B, 1, 1)
        return F.reshape(self.v, (self.batch_size,)) + F.reshape(
            adv, (self.batch_size,)
        )

    def compute_advantage(self, actions: Any) -> Variable:
        return self.evaluate_actions(actions) - self.max

    @property
    def params(self) -> tuple[Variable, ...]:
        return (self.mu, self.mat, self.v)

    def __getitem__(self, i: Any) -> QuadraticActionValue:
        return QuadraticActionValue(
            self.mu[i], self.mat[i], self.v[i], self.min_action, self.max_action
        )


class SingleActionValue(ActionValue):
    """Action value given by functions: ``evaluator(actions)`` and ``maximizer()``."""

    def __init__(
        self,
        evaluator: Callable[[Any], Variable],
        maximizer: Callable[[], Variable] | None = None,
    ) -> None:
        self.evaluator = evaluator
        self.maximizer = maximizer

    @cached_property
    def greedy_actions(self) -> Variable:
        if self.maximizer is None:
            raise ValueError("SingleActionValue: greedy_actions needs a maximizer")
        return self.maximizer()

    @cached_property
    def max(self) -> Variable:
        return self.evaluator(self.greedy_actions)

    def evaluate_actions(self, actions: Any) -> Variable:
        return self.evaluator(actions)

    def __getitem__(self, i: Any) -> SingleActionValue:
        raise TypeError("SingleActionValue does not support slicing")
