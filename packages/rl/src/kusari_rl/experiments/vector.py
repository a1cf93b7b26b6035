"""Helpers for Gymnasium vector envs in any autoreset mode.

The training and evaluation loops need, for every sub-env that just ended,
the observation it ended in (to store the transition) and then a fresh
observation (to act on). Gymnasium delivers those differently per
``autoreset_mode``:

* ``SAME_STEP``: ``step`` returns the reset observation and puts the final
  one in ``infos['final_obs']``;
* ``NEXT_STEP`` (the default) and ``DISABLED``: ``step`` returns the final
  observation; the loop resets the ended sub-envs itself with
  ``reset(options={'reset_mask': ...})``, which also stops ``NEXT_STEP``
  from spending the next step on an automatic reset.

Episodes cut by the loop (``max_episode_len``) are reset the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

__all__ = ["autoreset_mode", "ended_observations", "make_vector_env", "reset_done_envs"]


def autoreset_mode(env: Any) -> AutoresetMode:
    """The autoreset mode of a Gymnasium vector env."""
    mode = env.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP)
    return mode if isinstance(mode, AutoresetMode) else AutoresetMode(mode)


def ended_observations(
    env: Any, obss: Any, infos: dict[str, Any], ended: np.ndarray
) -> Any:
    """Observations in which each sub-env's step ended (final ones where done)."""
    if autoreset_mode(env) is not AutoresetMode.SAME_STEP or "final_obs" not in infos:
        return obss
    mask = infos.get("_final_obs", ended)
    if not np.any(mask):
        return obss
    out = np.array(obss, copy=True)
    for i in np.flatnonzero(mask):
        out[i] = infos["final_obs"][i]
    return out


def reset_done_envs(
    env: Any, obss: Any, ended: np.ndarray, cut_only: np.ndarray
) -> Any:
    """Reset the sub-envs that need it and return the observations to act on.

    Args:
        env: The vector env.
        obss: Observations returned by the last ``step``.
        ended: Sub-envs whose episode ended at this step (any reason).
        cut_only: Sub-envs ended by the loop, not by the env itself.
    """
    need = cut_only if autoreset_mode(env) is AutoresetMode.SAME_STEP else ended
    need = np.asarray(need, dtype=np.bool_)
    if not need.any():
        return obss
    new_obss, _ = env.reset(options={"reset_mask": need})
    return new_obss


def make_vector_env(
    env_fns: Sequence[Callable[[], gym.Env]],
    asynchronous: bool = False,
    autoreset: AutoresetMode = AutoresetMode.SAME_STEP,
) -> gym.vector.VectorEnv:
    """Build a Sync/AsyncVectorEnv (SAME_STEP autoreset by default).

    Example:
        >>> venv = make_vector_env([lambda: gym.make('CartPole-v1')] * 2)
        >>> venv.num_envs
        2
        >>> venv.close()
    """
    cls = gym.vector.AsyncVectorEnv if asynchronous else gym.vector.SyncVectorEnv
    return cls(list(env_fns), autoreset_mode=autoreset)
