"""Shared helpers for the on-policy agents' tests: models and a CartPole loop."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

import kusari.functions as F
from kusari_rl import policies, v_functions
from kusari_rl.agents.a2c import A2CSeparateModel


def make_model(
    obs_size: int = 4, n_actions: int = 2, hidden: int = 64
) -> A2CSeparateModel:
    return A2CSeparateModel(
        policies.FCSoftmaxPolicy(
            obs_size, n_actions, 2, hidden, nonlinearity=F.tanh, last_wscale=0.01
        ),
        v_functions.FCVFunction(obs_size, 2, hidden, nonlinearity=F.tanh),
    )


def run_vector(agent: Any, n_envs: int, steps: int, seed: int = 0) -> list[float]:
    """Train ``agent`` on ``n_envs`` CartPole-v1 copies; return episode returns."""
    env = gym.vector.SyncVectorEnv(
        [lambda: gym.make("CartPole-v1") for _ in range(n_envs)],
        autoreset_mode=gym.vector.AutoresetMode.SAME_STEP,
    )
    obs, _ = env.reset(seed=seed)
    returns: list[float] = []
    ep = np.zeros(n_envs)
    for _ in range(steps // n_envs):
        action = agent.batch_act_and_train(list(obs))
        obs, r, term, trunc, info = env.step(np.asarray(action))
        ep += r
        ended = term | trunc
        last = obs.copy()
        if ended.any():
            last[ended] = np.stack(info["final_obs"][ended])
        agent.batch_observe_and_train(list(last), r, term, trunc & ~term)
        for i in np.flatnonzero(ended):
            returns.append(float(ep[i]))
            ep[i] = 0.0
    env.close()
    return returns


def run_single(agent: Any, steps: int, seed: int = 0) -> list[float]:
    """Train ``agent`` on one CartPole-v1 with ChainerRL's single-env calls."""
    env = gym.make("CartPole-v1")
    obs, _ = env.reset(seed=seed)
    r, ep, returns = 0.0, 0.0, []
    for _ in range(steps):
        action = agent.act_and_train(obs, r)
        obs, r, term, trunc, _ = env.step(action)
        ep += r
        if term or trunc:
            agent.stop_episode_and_train(obs, r, done=term)
            returns.append(ep)
            ep, r = 0.0, 0.0
            obs, _ = env.reset()
    env.close()
    return returns


def greedy_score(agent: Any, n_episodes: int = 5, seed: int = 100) -> float:
    """Mean return of evaluation episodes (``agent.act`` after training)."""
    env = gym.make("CartPole-v1")
    scores = []
    for i in range(n_episodes):
        obs, _ = env.reset(seed=seed + i)
        done, total = False, 0.0
        while not done:
            obs, r, term, trunc, _ = env.step(agent.act(obs))
            total += r
            done = term or trunc
        agent.stop_episode()
        scores.append(total)
    env.close()
    return float(np.mean(scores))
