"""The training loops of the kusari-rl benchmarks: environments and trainers.

``_kusari`` builds the agents and their settings on top of these.
"""

from __future__ import annotations

from typing import Any

import _harness
import gymnasium as gym
import numpy as np


def make_env(env_id: str, seed: int) -> gym.Env:
    # CartPole's and Pendulum's observations are float32 arrays already, so
    # the agents keep their default (identity) phi: it lets a replay buffer
    # batch from its column copies instead of visiting every transition.
    env = gym.make(env_id)
    if isinstance(env.action_space, gym.spaces.Box):
        # SAC's squashed Gaussian and TD3's target smoothing work in [-1, 1].
        ones = np.ones(env.action_space.shape, dtype=np.float32)
        env = gym.wrappers.RescaleAction(env, -ones, ones)
    env.reset(seed=seed)
    env.action_space.seed(seed)
    return env


class SingleEnvTrainer(_harness.Trainer):
    """One environment, ChainerRL's single-env calls."""

    def __init__(self, agent: Any, env: gym.Env, seed: int) -> None:
        self.agent = agent
        self.env = env
        self.obs, _ = env.reset(seed=seed)
        self.reward = 0.0

    def train(self, n_steps: int) -> None:
        agent, env = self.agent, self.env
        obs, reward = self.obs, self.reward
        for _ in range(n_steps):
            action = agent.act_and_train(obs, reward)
            obs, reward, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                # A time-limit cut is not a terminal state: done=terminated.
                agent.stop_episode_and_train(obs, reward, done=terminated)
                obs, _ = env.reset()
                reward = 0.0
        self.obs, self.reward = obs, reward

    def greedy_action(self, obs: Any) -> Any:
        return self.agent.act(obs)

    def close(self) -> None:
        self.env.close()


class BatchEnvTrainer(_harness.Trainer):
    """Several environments stepped in lock-step, ChainerRL's batch calls."""

    def __init__(self, agent: Any, envs: list[gym.Env], seed: int) -> None:
        self.agent = agent
        self.envs = envs
        self.obs = [env.reset(seed=seed + i)[0] for i, env in enumerate(envs)]

    def train(self, n_steps: int) -> None:
        agent, envs = self.agent, self.envs
        n = len(envs)
        for _ in range(max(1, n_steps // n)):
            actions = agent.batch_act_and_train(self.obs)
            next_obs, rewards, dones, resets = [], [], [], []
            for env, a in zip(envs, actions):
                o, r, terminated, truncated, _ = env.step(a)
                next_obs.append(o)
                rewards.append(r)
                dones.append(terminated)
                resets.append(truncated)
            agent.batch_observe_and_train(next_obs, rewards, dones, resets)
            for i, env in enumerate(envs):
                if dones[i] or resets[i]:
                    next_obs[i], _ = env.reset()
            self.obs = next_obs

    def greedy_action(self, obs: Any) -> Any:
        # ChainerRL's act() is the greedy action once *_and_train drove the
        # agent; it leaves the batch training state alone.
        return self.agent.act(obs)

    def close(self) -> None:
        for env in self.envs:
            env.close()


class AnnealedTrainer(_harness.Trainer):
    """Another trainer whose hyperparameters decay linearly to 0 over the
    budget, as rl-zoo's ``lin_<value>`` schedules do in SB3.

    Before every ``period`` steps of training each ``(object, attribute)``
    is set to its starting value times the fraction of the budget left.
    """

    def __init__(
        self,
        inner: _harness.Trainer,
        targets: list[tuple[Any, str]],
        total_steps: int,
        period: int,
    ) -> None:
        self.inner = inner
        self.agent = getattr(inner, "agent", None)
        self.targets = [(obj, name, getattr(obj, name)) for obj, name in targets]
        self.total_steps = total_steps
        self.period = period
        self.done_steps = 0

    def train(self, n_steps: int) -> None:
        for _ in range(max(1, n_steps // self.period)):
            left = max(0.0, 1.0 - self.done_steps / self.total_steps)
            for obj, name, start in self.targets:
                setattr(obj, name, start * left)
            self.inner.train(self.period)
            self.done_steps += self.period

    def greedy_action(self, obs: Any) -> Any:
        return self.inner.greedy_action(obs)

    def close(self) -> None:
        self.inner.close()

    def __getattr__(self, name: str) -> Any:
        # env / envs of the wrapped trainer (the tests reach for them).
        return getattr(self.__dict__["inner"], name)
