"""DeepMind-style Atari preprocessing on Gymnasium (needs ``ale-py``).

``make_atari`` + ``wrap_deepmind`` give ChainerRL's Atari pipeline: 30 no-op
starts, 4-frame skip with max-pooling, 84x84 grayscale (Gymnasium's
``AtariPreprocessing``), optional life-loss episodes, reward clipping and a
stack of 4 frames kept as :class:`LazyFrames` so that a replay buffer shares
frames between consecutive observations instead of copying them.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import gymnasium as gym
import numpy as np

__all__ = [
    "EpisodicLifeEnv",
    "FireResetEnv",
    "FrameStack",
    "LazyFrames",
    "make_atari",
    "wrap_deepmind",
]


def _require_ale() -> None:
    try:
        import ale_py
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError(
            "Atari environments need ale-py: pip install 'kusari-rl[atari]'"
        ) from exc
    gym.register_envs(ale_py)


def make_atari(env_id: str, max_frames: int | None = 30 * 60 * 60) -> gym.Env:
    """Make an ALE env with frame skipping off (``AtariPreprocessing`` skips).

    Args:
        env_id: e.g. ``'ALE/Pong-v5'`` or ``'PongNoFrameskip-v4'``.
        max_frames: Frame limit of an episode (None: the env's own).
    """
    _require_ale()
    kwargs: dict[str, Any] = {"frameskip": 1}
    if max_frames is not None:
        kwargs["max_num_frames_per_episode"] = max_frames
    if env_id.startswith("ALE/"):
        kwargs["repeat_action_probability"] = 0.0
    return gym.make(env_id, **kwargs)


class EpisodicLifeEnv(gym.Wrapper):
    """End an episode (as terminal) when a life is lost; reset the game only
    when it is really over."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.lives = 0
        self.was_real_done = True

    def step(self, action: Any) -> Any:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.was_real_done = terminated or truncated
        lives = self.env.unwrapped.ale.lives()  # type: ignore[attr-defined]
        if 0 < lives < self.lives:
            terminated = True
        self.lives = lives
        return obs, reward, terminated, truncated, info

    def reset(self, **kwargs: Any) -> Any:
        if self.was_real_done:
            obs, info = self.env.reset(**kwargs)
        else:
            # No-op step to continue from the state after the lost life.
            obs, _, terminated, truncated, info = self.env.step(0)
            if terminated or truncated:
                obs, info = self.env.reset(**kwargs)
        self.lives = self.env.unwrapped.ale.lives()  # type: ignore[attr-defined]
        return obs, info


class FireResetEnv(gym.Wrapper):
    """Press FIRE after reset (games that wait for it)."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        meanings = env.unwrapped.get_action_meanings()  # type: ignore[attr-defined]
        if len(meanings) < 3 or meanings[1] != "FIRE":
            raise ValueError(f"FireResetEnv: action 1 is not FIRE in {meanings}")

    def reset(self, **kwargs: Any) -> Any:
        self.env.reset(**kwargs)
        obs, _, terminated, truncated, info = self.env.step(1)
        if terminated or truncated:
            obs, info = self.env.reset(**kwargs)
        return obs, info


class LazyFrames:
    """A stack of frames materialised only when converted to an array.

    Consecutive stacks share their frame arrays, so storing many of them (a
    replay buffer) costs one frame each instead of ``k``.
    """

    def __init__(self, frames: list[np.ndarray], stack_axis: int = 0) -> None:
        self._frames = frames
        self.stack_axis = stack_axis

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = np.stack(self._frames, axis=self.stack_axis)
        return out.astype(dtype, copy=False) if dtype is not None else out

    def __len__(self) -> int:
        return len(self._frames)

    @property
    def shape(self) -> tuple[int, ...]:
        f = self._frames[0].shape
        return f[: self.stack_axis] + (len(self._frames),) + f[self.stack_axis :]


class FrameStack(gym.Wrapper):
    """Stack the last ``k`` frames along a new first (channel) axis."""

    def __init__(self, env: gym.Env, k: int, channel_order: str = "chw") -> None:
        super().__init__(env)
        if channel_order not in ("chw", "hwc"):
            raise ValueError(
                "FrameStack: channel_order must be 'chw' or 'hwc', got "
                f"{channel_order!r}"
            )
        self.k = k
        self.frames: deque[np.ndarray] = deque(maxlen=k)
        self.stack_axis = 0 if channel_order == "chw" else -1
        space = env.observation_space
        assert isinstance(space, gym.spaces.Box)
        axis = 0 if channel_order == "chw" else len(space.shape)
        low = np.stack([space.low] * k, axis=axis)
        high = np.stack([space.high] * k, axis=axis)
        self.observation_space = gym.spaces.Box(low, high, dtype=space.dtype)

    def reset(self, **kwargs: Any) -> Any:
        obs, info = self.env.reset(**kwargs)
        for _ in range(self.k):
            self.frames.append(obs)
        return LazyFrames(list(self.frames), self._axis()), info

    def step(self, action: Any) -> Any:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.frames.append(obs)
        return (
            LazyFrames(list(self.frames), self._axis()),
            reward,
            terminated,
            truncated,
            info,
        )

    def _axis(self) -> int:
        return 0 if self.stack_axis == 0 else self.frames[0].ndim


def _sign(r: Any) -> float:
    return float(np.sign(float(r)))


def wrap_deepmind(
    env: gym.Env,
    episode_life: bool = True,
    clip_rewards: bool = True,
    frame_stack: bool = True,
    scale: bool = False,
    fire_reset: bool = False,
    channel_order: str = "chw",
    noop_max: int = 30,
    frame_skip: int = 4,
) -> gym.Env:
    """DeepMind's Atari preprocessing for an env from :func:`make_atari`."""
    env = gym.wrappers.AtariPreprocessing(
        env,
        noop_max=noop_max,
        frame_skip=frame_skip,
        screen_size=84,
        grayscale_obs=True,
        scale_obs=scale,
    )
    if episode_life:
        env = EpisodicLifeEnv(env)
    if fire_reset and "FIRE" in env.unwrapped.get_action_meanings():  # type: ignore[attr-defined]
        env = FireResetEnv(env)
    if clip_rewards:
        env = gym.wrappers.TransformReward(env, _sign)
    if frame_stack:
        env = FrameStack(env, 4, channel_order=channel_order)
    return env
