"""Small, fully controllable links and environments for the DDPG/TD3/SAC tests."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

import kusari
import kusari.functions as F
import kusari.links as L
from kusari_rl.distribution import ContinuousDeterministicDistribution


class LinearQ(kusari.Chain):
    """``Q(s, a) = w . [s, a] + b`` with settable weights."""

    def __init__(self, obs_size: int, action_size: int, w: Any = None, b: float = 0.0):
        super().__init__()
        with self.init_scope():
            self.l = L.Linear(obs_size + action_size, 1)
        if w is not None:
            self.l.W.array[...] = np.asarray(w, np.float32).reshape(1, -1)
            self.l.b.array[...] = b

    def forward(self, s: Any, a: Any) -> Any:
        return self.l(F.concat((s, a), axis=1))


class LinearDeterministicPolicy(kusari.Chain):
    """``mu(s) = tanh(W s + b)`` as a point-mass distribution."""

    def __init__(self, obs_size: int, action_size: int, w: Any = None, b: float = 0.0):
        super().__init__()
        with self.init_scope():
            self.l = L.Linear(obs_size, action_size)
        if w is not None:
            self.l.W.array[...] = np.asarray(w, np.float32).reshape(action_size, -1)
            self.l.b.array[...] = b

    def forward(self, s: Any) -> Any:
        return ContinuousDeterministicDistribution(F.tanh(self.l(s)))


class FixedSampleDistribution:
    """A distribution whose sample and log-density are given (for hand targets)."""

    def __init__(self, action: Any, log_prob: Any, mode: Any = None) -> None:
        self.action = kusari.Variable(np.asarray(action, np.float32))
        self.lp = kusari.Variable(np.asarray(log_prob, np.float32))
        self.mode = self.action if mode is None else kusari.Variable(mode)

    def sample_with_log_prob(self) -> tuple[Any, Any]:
        return self.action, self.lp

    def sample(self) -> Any:
        return self.action

    @property
    def most_probable(self) -> Any:
        return self.mode


class FixedPolicy(kusari.Chain):
    """Policy returning one :class:`FixedSampleDistribution` for any input."""

    def __init__(self, action: Any, log_prob: Any) -> None:
        super().__init__()
        self.action = np.asarray(action, np.float32)
        self.log_prob = np.asarray(log_prob, np.float32)

    def forward(self, s: Any) -> Any:
        n = len(s)
        return FixedSampleDistribution(
            np.broadcast_to(self.action, (n, self.action.shape[-1])),
            np.broadcast_to(self.log_prob, (n,)),
        )


class TinyEnv(gym.Env):
    """1-D walk: obs is the step count; terminates at ``terminal_at`` if set."""

    def __init__(self, horizon: int = 3, terminal_at: int | None = None) -> None:
        self.observation_space = gym.spaces.Box(-10, 10, (2,), np.float32)
        self.action_space = gym.spaces.Box(-1, 1, (1,), np.float32)
        self.horizon = horizon
        self.terminal_at = terminal_at
        self.t = 0

    def _obs(self) -> Any:
        return np.array([self.t, 1.0], np.float32)

    def reset(self, *, seed: int | None = None, options: Any = None) -> Any:
        super().reset(seed=seed)
        self.t = 0
        return self._obs(), {}

    def step(self, action: Any) -> Any:
        self.t += 1
        terminated = self.terminal_at is not None and self.t >= self.terminal_at
        truncated = not terminated and self.t >= self.horizon
        return self._obs(), 1.0, terminated, truncated, {}


def adam(link: Any, lr: float = 1e-3) -> Any:
    opt = kusari.optimizers.Adam(alpha=lr)
    opt.setup(link)
    return opt


def batch(s: Any, a: Any, r: Any, s2: Any, term: Any, discount: Any) -> dict[str, Any]:
    f = np.float32
    return {
        "state": np.asarray(s, f),
        "action": np.asarray(a, f),
        "reward": np.asarray(r, f),
        "next_state": np.asarray(s2, f),
        "is_state_terminal": np.asarray(term, f),
        "discount": np.asarray(discount, f),
    }
