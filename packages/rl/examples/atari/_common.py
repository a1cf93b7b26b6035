"""Shared pieces of the Atari examples: env construction and the ale-py check."""

from __future__ import annotations

import sys

import gymnasium as gym
import numpy as np


def require_ale() -> None:
    """Exit with a message (status 0) when ale-py is not installed."""
    try:
        import ale_py  # noqa: F401
        import cv2  # noqa: F401
    except ImportError:
        print(
            "skipped: the Atari examples need ale-py and OpenCV; install them with "
            "pip install 'kusari-rl[atari]'"
        )
        sys.exit(0)


def make_env(
    env_id: str, seed: int, max_frames: int, test: bool, eval_epsilon: float = 0.0
) -> gym.Env:
    """DeepMind-preprocessed Atari env; test envs keep whole games and raw rewards."""
    from kusari_rl.wrappers import RandomizeAction, atari_wrappers

    env = atari_wrappers.wrap_deepmind(
        atari_wrappers.make_atari(env_id, max_frames=max_frames),
        episode_life=not test,
        clip_rewards=not test,
    )
    if test and eval_epsilon > 0:
        env = RandomizeAction(env, eval_epsilon)
    env.reset(seed=seed + (2**31 if test else 0))
    env.action_space.seed(seed)
    return env


def phi(x: object) -> np.ndarray:
    """Frames are uint8; the networks take float32 in [0, 1]."""
    return np.asarray(x, dtype=np.float32) / 255.0
