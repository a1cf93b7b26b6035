"""Stable-Baselines3 side of the benchmarks, with rl-baselines3-zoo's tuned
hyperparameters for these environments (the settings SB3 users start from).

SB3 is driven through one ``learn`` call per run (its learning-rate and
clip-range schedules depend on the total budget); a callback pauses every
``eval_interval`` steps to evaluate, off the clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import _harness
import gymnasium as gym


def _linear(start: float) -> Callable[[float], float]:
    return lambda progress_remaining: progress_remaining * start


def _config(algo: str) -> tuple[Any, dict[str, Any], int]:
    """(SB3 class, keyword arguments, number of envs) for ``algo``."""
    import stable_baselines3 as sb3
    from stable_baselines3.common.noise import NormalActionNoise

    if algo == "DQN":
        return (
            sb3.DQN,
            {
                "learning_rate": 2.3e-3,
                "batch_size": 64,
                "buffer_size": 100_000,
                "learning_starts": 1000,
                "gamma": 0.99,
                "target_update_interval": 10,
                "train_freq": 256,
                "gradient_steps": 128,
                "exploration_fraction": 0.16,
                "exploration_final_eps": 0.04,
                "policy_kwargs": {"net_arch": [256, 256]},
            },
            1,
        )
    if algo == "PPO":
        return (
            sb3.PPO,
            {
                "n_steps": 32,
                "batch_size": 256,
                "gae_lambda": 0.8,
                "gamma": 0.98,
                "n_epochs": 20,
                "ent_coef": 0.0,
                "learning_rate": _linear(1e-3),
                "clip_range": _linear(0.2),
            },
            8,
        )
    if algo == "A2C":
        return sb3.A2C, {"ent_coef": 0.0}, 8
    if algo == "SAC":
        return sb3.SAC, {"learning_rate": 1e-3}, 1
    if algo == "TD3":
        import numpy as np

        return (
            sb3.TD3,
            {
                "gamma": 0.98,
                "buffer_size": 200_000,
                "learning_starts": 10_000,
                "action_noise": NormalActionNoise(np.zeros(1), 0.1 * np.ones(1)),
                "gradient_steps": 1,
                "train_freq": 1,
                "learning_rate": 1e-3,
                "policy_kwargs": {"net_arch": [400, 300]},
            },
            1,
        )
    raise ValueError(f"no SB3 configuration for {algo!r}")


def run(
    algo: str,
    seed: int,
    task: _harness.Task,
    log: Callable[[str], None] = _harness._print,
) -> _harness.Result:
    """One SB3 run, measured like the kusari-rl ones."""
    result = _harness.Result("SB3", algo, seed)
    try:
        import torch
        from stable_baselines3.common.callbacks import BaseCallback
        from stable_baselines3.common.env_util import make_vec_env
    except ImportError as e:
        result.error = f"not installed ({e.name})"
        return result
    torch.set_num_threads(1)
    cls, kwargs, n_envs = _config(algo)
    env = make_vec_env(task.env_id, n_envs=n_envs, seed=seed)
    model = cls("MlpPolicy", env, seed=seed, device="cpu", verbose=0, **kwargs)
    eval_env = gym.make(task.env_id)

    def greedy(obs: Any) -> Any:
        return model.predict(obs, deterministic=True)[0]

    class EvalEvery(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.next_eval = task.eval_interval
            self.evals_after = 0
            self.paused = 0.0

        def _on_step(self) -> bool:
            if self.num_timesteps < self.next_eval:
                return True
            t0 = time.perf_counter()
            self.next_eval += task.eval_interval
            score = _harness.evaluate(
                greedy, eval_env, task.eval_episodes, 10_000 + seed * 100
            )
            result.evals.append((self.num_timesteps, score))
            result.steps = self.num_timesteps
            self.paused += time.perf_counter() - t0
            result.train_seconds = time.perf_counter() - start - self.paused
            log(
                f"  {'SB3':8s} {algo:4s} seed={seed} step={self.num_timesteps:6d} "
                f"eval={score:8.1f} ({result.steps_per_second:6.1f} steps/s)"
            )
            if result.solved_at is None:
                if score >= task.threshold:
                    result.solved_at = self.num_timesteps
                    result.stays_solved = True
                    return task.after_solve > 0
                return True
            self.evals_after += 1
            if score < task.threshold:
                result.stays_solved = False
            return self.evals_after < task.after_solve

    callback = EvalEvery()
    start = time.perf_counter()
    try:
        model.learn(task.max_steps, callback=callback)
    finally:
        env.close()
        eval_env.close()
    return result
