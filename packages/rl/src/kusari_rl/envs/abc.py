"""ABC: a tiny env for testing agents quickly (ChainerRL's ``envs.ABC``)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

__all__ = ["ABC"]


class ABC(gym.Env):
    """Press the right buttons in order: action ``i`` at step ``i``.

    The state ``s`` is the number of correct presses so far, observed one-hot
    (size ``size + 1``) plus a constant 1. The correct action at state ``s``
    is ``s`` (actions ``0..size``); it moves to ``s + 1``, and the last one
    gives reward 1 and ends the episode (``terminated``). A wrong action
    ends it with reward 0 unless ``episodic=False``, where it only returns to
    state 0 and the episode is cut by ``max_episode_steps`` (``truncated``).

    Args:
        size: Number of steps in the correct sequence minus one.
        discrete: Discrete actions; otherwise a Box in ``[-1, 1]`` whose
            first coordinate is mapped to the nearest button.
        partially_observable: Observe only the constant feature.
        episodic: Wrong actions terminate the episode.
        deterministic: No noise added to observations.
        max_episode_steps: Truncation length.

    Example:
        >>> env = ABC()
        >>> obs, _ = env.reset(seed=0)
        >>> env.step(0)[1:3], env.step(1)[1:3], env.step(2)[1:3]
        ((0.0, False), (0.0, False), (1.0, True))
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        size: int = 2,
        discrete: bool = True,
        partially_observable: bool = False,
        episodic: bool = True,
        deterministic: bool = True,
        max_episode_steps: int = 20,
    ) -> None:
        self.size = size
        self.discrete = discrete
        self.partially_observable = partially_observable
        self.episodic = episodic
        self.deterministic = deterministic
        self.max_episode_steps = max_episode_steps
        self.observation_space = gym.spaces.Box(
            -1.0, 2.0, shape=(size + 2,), dtype=np.float32
        )
        if discrete:
            self.action_space: gym.Space = gym.spaces.Discrete(size + 1)
        else:
            self.action_space = gym.spaces.Box(-1.0, 1.0, shape=(1,), dtype=np.float32)
        self._state = 0
        self._t = 0

    def _observe(self) -> np.ndarray:
        obs = np.zeros(self.size + 2, dtype=np.float32)
        if not self.partially_observable:
            obs[self._state] = 1.0
        obs[-1] = 1.0
        if not self.deterministic:
            obs += self.np_random.normal(scale=0.01, size=obs.shape).astype(np.float32)
        return obs

    def _button(self, action: Any) -> int:
        if self.discrete:
            return int(action)
        a = float(np.asarray(action).ravel()[0])
        return int(np.clip(np.round((a + 1.0) / 2.0 * self.size), 0, self.size))

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> Any:
        super().reset(seed=seed)
        self._state = 0
        self._t = 0
        return self._observe(), {}

    def step(self, action: Any) -> Any:
        self._t += 1
        reward, terminated = 0.0, False
        if self._button(action) == self._state:
            if self._state == self.size:
                reward, terminated = 1.0, True
            else:
                self._state += 1
        elif self.episodic:
            terminated = True
        else:
            self._state = 0
        truncated = not terminated and self._t >= self.max_episode_steps
        return self._observe(), reward, terminated, truncated, {}
