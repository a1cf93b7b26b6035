"""Small Gymnasium wrappers (``chainerrl.wrappers``)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

__all__ = [
    "CastObservation",
    "CastObservationToFloat32",
    "ClipAction",
    "NormalizeActionSpace",
    "RandomizeAction",
    "ScaleReward",
]


class CastObservation(gym.ObservationWrapper):
    """Cast observations to ``dtype``.

    Example:
        >>> env = CastObservation(gym.make('CartPole-v1'), np.float64)
        >>> env.reset(seed=0)[0].dtype
        dtype('float64')
    """

    def __init__(self, env: gym.Env, dtype: Any) -> None:
        super().__init__(env)
        self.dtype = np.dtype(dtype)
        space = env.observation_space
        if isinstance(space, gym.spaces.Box):
            self.observation_space = gym.spaces.Box(
                space.low.astype(self.dtype),
                space.high.astype(self.dtype),
                shape=space.shape,
                dtype=self.dtype,
            )

    def observation(self, observation: Any) -> Any:
        self.original_observation = observation
        return np.asarray(observation).astype(self.dtype, copy=False)


class CastObservationToFloat32(CastObservation):
    """Cast observations to float32 (what kusari links expect)."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env, np.float32)


class ScaleReward(gym.RewardWrapper):
    """Multiply rewards by ``scale`` (``original_reward`` keeps the raw one)."""

    def __init__(self, env: gym.Env, scale: float) -> None:
        super().__init__(env)
        self.scale = scale
        self.original_reward: float | None = None

    def reward(self, reward: Any) -> Any:
        self.original_reward = reward
        return self.scale * reward


class ClipAction(gym.ActionWrapper):
    """Clip continuous actions into the action space's bounds."""

    def __init__(self, env: gym.Env) -> None:
        if not isinstance(env.action_space, gym.spaces.Box):
            raise ValueError(
                f"ClipAction needs a Box action space, got {env.action_space}"
            )
        super().__init__(env)

    def action(self, action: Any) -> Any:
        space = self.env.action_space
        return np.clip(action, space.low, space.high)  # type: ignore[attr-defined]


class NormalizeActionSpace(gym.ActionWrapper):
    """Expose a Box action space as ``[-1, 1]^n`` and rescale actions back."""

    def __init__(self, env: gym.Env) -> None:
        space = env.action_space
        if not isinstance(space, gym.spaces.Box) or not (
            np.all(np.isfinite(space.low)) and np.all(np.isfinite(space.high))
        ):
            raise ValueError(
                f"NormalizeActionSpace needs a bounded Box action space, got {space}"
            )
        super().__init__(env)
        self.action_space = gym.spaces.Box(
            -1.0, 1.0, shape=space.shape, dtype=np.float32
        )

    def action(self, action: Any) -> Any:
        space = self.env.action_space
        low, high = space.low, space.high  # type: ignore[attr-defined]
        a = np.clip(np.asarray(action, dtype=np.float64), -1.0, 1.0)
        return (low + (a + 1.0) * 0.5 * (high - low)).astype(space.dtype)


class RandomizeAction(gym.ActionWrapper):
    """Replace the action by a random one with probability ``random_fraction``.

    The draws use the env's own ``np_random``, so seeding the env (and
    snapshots, which save it) covers them.
    """

    def __init__(self, env: gym.Env, random_fraction: float) -> None:
        if not isinstance(env.action_space, gym.spaces.Discrete):
            raise ValueError(
                f"RandomizeAction needs a Discrete action space, got {env.action_space}"
            )
        if not 0.0 <= random_fraction <= 1.0:
            raise ValueError(
                "RandomizeAction: random_fraction must be in [0, 1], got "
                f"{random_fraction}"
            )
        super().__init__(env)
        self.random_fraction = random_fraction

    def action(self, action: Any) -> Any:
        rng = self.env.unwrapped.np_random
        if self.random_fraction > 0 and rng.random() < self.random_fraction:
            n = self.env.action_space.n  # type: ignore[attr-defined]
            return int(rng.integers(n))
        return action
