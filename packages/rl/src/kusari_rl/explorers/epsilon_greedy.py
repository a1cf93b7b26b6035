"""Epsilon-greedy explorers with constant, linear and exponential schedules."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import numpy as np

from kusari_rl.explorer import Explorer

__all__ = [
    "ConstantEpsilonGreedy",
    "ExponentialDecayEpsilonGreedy",
    "LinearDecayEpsilonGreedy",
    "select_action_epsilon_greedily",
]


def select_action_epsilon_greedily(
    epsilon: float,
    random_action_func: Callable[[], Any],
    greedy_action_func: Callable[[], Any],
) -> tuple[Any, bool]:
    """Return ``(action, is_greedy)``: random with probability ``epsilon``."""
    if np.random.random_sample() < epsilon:
        return random_action_func(), False
    return greedy_action_func(), True


def _check_epsilon(name: str, **values: float) -> None:
    for key, value in values.items():
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{name}: {key} must be in [0, 1], got {value}")


class ConstantEpsilonGreedy(Explorer):
    """Epsilon-greedy with a fixed epsilon.

    Args:
        epsilon: Probability of a random action.
        random_action_func: Returns a random action
            (e.g. ``env.action_space.sample``).
    """

    def __init__(
        self,
        epsilon: float,
        random_action_func: Callable[[], Any],
        logger: logging.Logger | None = None,
    ) -> None:
        _check_epsilon("ConstantEpsilonGreedy", epsilon=epsilon)
        self.epsilon = epsilon
        self.random_action_func = random_action_func
        self.logger = logger or logging.getLogger(__name__)

    def select_action(
        self, t: int, greedy_action_func: Callable[[], Any], action_value: Any = None
    ) -> Any:
        a, _ = select_action_epsilon_greedily(
            self.epsilon, self.random_action_func, greedy_action_func
        )
        return a

    def __repr__(self) -> str:
        return f"ConstantEpsilonGreedy(epsilon={self.epsilon})"


class LinearDecayEpsilonGreedy(Explorer):
    """Epsilon decays linearly from ``start_epsilon`` to ``end_epsilon``.

    ``epsilon(t) = start + (end - start) * t / decay_steps`` until
    ``decay_steps``, then ``end_epsilon``.

    Example:
        >>> ex = LinearDecayEpsilonGreedy(1.0, 0.1, 100, lambda: 0)
        >>> ex.compute_epsilon(50)
        0.55
    """

    def __init__(
        self,
        start_epsilon: float,
        end_epsilon: float,
        decay_steps: int,
        random_action_func: Callable[[], Any],
        logger: logging.Logger | None = None,
    ) -> None:
        _check_epsilon(
            "LinearDecayEpsilonGreedy",
            start_epsilon=start_epsilon,
            end_epsilon=end_epsilon,
        )
        if decay_steps < 0:
            raise ValueError(
                f"LinearDecayEpsilonGreedy: decay_steps must be >= 0, got {decay_steps}"
            )
        self.start_epsilon = start_epsilon
        self.end_epsilon = end_epsilon
        self.decay_steps = decay_steps
        self.random_action_func = random_action_func
        self.logger = logger or logging.getLogger(__name__)
        self.epsilon = start_epsilon

    def compute_epsilon(self, t: int) -> float:
        if t >= self.decay_steps:
            return self.end_epsilon
        frac = t / self.decay_steps
        return self.start_epsilon + (self.end_epsilon - self.start_epsilon) * frac

    def select_action(
        self, t: int, greedy_action_func: Callable[[], Any], action_value: Any = None
    ) -> Any:
        self.epsilon = self.compute_epsilon(t)
        a, _ = select_action_epsilon_greedily(
            self.epsilon, self.random_action_func, greedy_action_func
        )
        return a

    def __repr__(self) -> str:
        return f"LinearDecayEpsilonGreedy(epsilon={self.epsilon})"


class ExponentialDecayEpsilonGreedy(Explorer):
    """Epsilon is ``max(end_epsilon, start_epsilon * decay**t)``."""

    def __init__(
        self,
        start_epsilon: float,
        end_epsilon: float,
        decay: float,
        random_action_func: Callable[[], Any],
        logger: logging.Logger | None = None,
    ) -> None:
        _check_epsilon(
            "ExponentialDecayEpsilonGreedy",
            start_epsilon=start_epsilon,
            end_epsilon=end_epsilon,
            decay=decay,
        )
        self.start_epsilon = start_epsilon
        self.end_epsilon = end_epsilon
        self.decay = decay
        self.random_action_func = random_action_func
        self.logger = logger or logging.getLogger(__name__)
        self.epsilon = start_epsilon

    def compute_epsilon(self, t: int) -> float:
        return max(self.end_epsilon, self.start_epsilon * self.decay**t)

    def select_action(
        self, t: int, greedy_action_func: Callable[[], Any], action_value: Any = None
    ) -> Any:
        self.epsilon = self.compute_epsilon(t)
        a, _ = select_action_epsilon_greedily(
            self.epsilon, self.random_action_func, greedy_action_func
        )
        return a

    def __repr__(self) -> str:
        return f"ExponentialDecayEpsilonGreedy(epsilon={self.epsilon})"
