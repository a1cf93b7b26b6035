"""Greedy, Boltzmann and additive-noise explorers."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import numpy as np

import kusari
from kusari_rl.explorer import Explorer

__all__ = ["AdditiveGaussian", "AdditiveOU", "Boltzmann", "Greedy"]


class Greedy(Explorer):
    """No exploration: always the greedy action."""

    def select_action(
        self, t: int, greedy_action_func: Callable[[], Any], action_value: Any = None
    ) -> Any:
        return greedy_action_func()

    def __repr__(self) -> str:
        return "Greedy()"


class Boltzmann(Explorer):
    """Sample actions with probability ``softmax(Q / T)``.

    Args:
        T: Temperature (> 0); higher is more random.
    """

    def __init__(self, T: float = 1.0) -> None:
        if T <= 0:
            raise ValueError(f"Boltzmann: temperature T must be > 0, got {T}")
        self.T = T

    def select_action(
        self, t: int, greedy_action_func: Callable[[], Any], action_value: Any = None
    ) -> Any:
        if action_value is None:
            raise ValueError(
                "Boltzmann.select_action needs action_value (the Q-values)"
            )
        q = action_value.q_values
        q = q.array if isinstance(q, kusari.Variable) else q
        q = (
            np.asarray(kusari.backend.CpuDevice().send(q), dtype=np.float64).ravel()
            / self.T
        )
        p = np.exp(q - q.max())
        p /= p.sum()
        return int(np.random.choice(len(p), p=p))

    def __repr__(self) -> str:
        return f"Boltzmann(T={self.T})"


class AdditiveGaussian(Explorer):
    """Add Gaussian noise of std ``scale`` to the greedy action.

    Args:
        scale: Noise standard deviation (scalar or per dimension).
        low, high: Clip the noisy action into this box (optional).
    """

    def __init__(self, scale: Any, low: Any = None, high: Any = None) -> None:
        self.scale = scale
        self.low = low
        self.high = high

    def select_action(
        self, t: int, greedy_action_func: Callable[[], Any], action_value: Any = None
    ) -> Any:
        a = np.asarray(greedy_action_func())
        noisy = a + np.random.normal(scale=self.scale, size=a.shape).astype(a.dtype)
        if self.low is not None or self.high is not None:
            noisy = np.clip(noisy, self.low, self.high).astype(a.dtype)
        return noisy

    def __repr__(self) -> str:
        return f"AdditiveGaussian(scale={self.scale}, low={self.low}, high={self.high})"


class AdditiveOU(Explorer):
    """Add Ornstein-Uhlenbeck noise to the greedy action (DDPG's exploration).

    ``x += theta * (mu - x) + sigma * N(0, 1)`` each step.

    Args:
        mu, theta, sigma: Process parameters.
        start_with_mu: Start the process at ``mu`` (else a draw around it).
    """

    def __init__(
        self,
        mu: float = 0.0,
        theta: float = 0.15,
        sigma: float = 0.3,
        start_with_mu: bool = False,
        logger: logging.Logger | None = None,
    ) -> None:
        self.mu = mu
        self.theta = theta
        self.sigma = sigma
        self.start_with_mu = start_with_mu
        self.logger = logger or logging.getLogger(__name__)
        self.ou_state: np.ndarray | None = None

    def evolve(self) -> None:
        assert self.ou_state is not None
        noise = np.random.normal(size=self.ou_state.shape).astype(self.ou_state.dtype)
        self.ou_state += self.theta * (self.mu - self.ou_state) + self.sigma * noise

    def select_action(
        self, t: int, greedy_action_func: Callable[[], Any], action_value: Any = None
    ) -> Any:
        a = np.asarray(greedy_action_func())
        if self.ou_state is None:
            if self.start_with_mu:
                self.ou_state = np.full(a.shape, self.mu, dtype=np.float32)
            else:
                sigma_stable = self.sigma / np.sqrt(2 * self.theta - self.theta**2)
                self.ou_state = np.random.normal(
                    size=a.shape, loc=self.mu, scale=sigma_stable
                ).astype(np.float32)
        else:
            self.evolve()
        return (a + self.ou_state).astype(a.dtype)

    def __repr__(self) -> str:
        return f"AdditiveOU(mu={self.mu}, theta={self.theta}, sigma={self.sigma})"
