"""kusari-rl side of the benchmarks: agents, their settings and training loops.

The settings are chosen for these small problems and printed with the table;
the loops use ChainerRL's calls (``act_and_train`` / ``stop_episode_and_train``
for one env, ``batch_act_and_train`` / ``batch_observe_and_train`` for
several), with Gymnasium's termination/truncation split passed through as
``done`` and ``reset``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import _harness
import gymnasium as gym
import numpy as np

import kusari
import kusari.functions as F
import kusari.links as L
import kusari_rl
from kusari_rl import (
    agents,
    explorers,
    policies,
    q_functions,
    replay_buffers,
    wrappers,
)


def _phi(x: Any) -> Any:
    return np.asarray(x, dtype=np.float32)


def make_env(env_id: str, seed: int) -> gym.Env:
    env = gym.make(env_id)
    if isinstance(env.action_space, gym.spaces.Box):
        # SAC's squashed Gaussian and TD3's target smoothing work in [-1, 1].
        env = gym.wrappers.RescaleAction(env, -1.0, 1.0)
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


def _mlp_q(obs_size: int, action_size: int, hidden: int) -> Any:
    return q_functions.FCSAQFunction(
        obs_size, action_size, n_hidden_channels=hidden, n_hidden_layers=2
    )


def _adam(link: Any, lr: float) -> Any:
    opt = kusari.optimizers.Adam(alpha=lr)
    opt.setup(link)
    return opt


# Pendulum needs no more: 64-unit layers learn as fast as 256-unit ones here,
# at a fraction of the arithmetic per step.
HIDDEN = 64


def make_sac(seed: int, env_id: str = "Pendulum-v1") -> _harness.Trainer:
    kusari_rl.misc.set_random_seed(seed)
    env = make_env(env_id, seed)
    obs_size = env.observation_space.shape[0]
    action_size = env.action_space.shape[0]
    hidden = HIDDEN
    policy = kusari.Sequential(
        L.Linear(obs_size, hidden),
        F.relu,
        L.Linear(hidden, hidden),
        F.relu,
        L.Linear(hidden, 2 * action_size),
        policies.SquashedDiagonalGaussianHead(),
    )
    q1 = _mlp_q(obs_size, action_size, hidden)
    q2 = _mlp_q(obs_size, action_size, hidden)
    lr = 1e-3
    agent = agents.SoftActorCritic(
        policy,
        q1,
        q2,
        _adam(policy, lr),
        _adam(q1, lr),
        _adam(q2, lr),
        replay_buffers.ReplayBuffer(10**6),
        gamma=0.99,
        replay_start_size=256,
        minibatch_size=256,
        phi=_phi,
        burnin_action_func=env.action_space.sample,
        entropy_target=-float(action_size),
        temperature_optimizer=kusari.optimizers.Adam(alpha=lr),
    )
    return SingleEnvTrainer(agent, env, seed)


def make_td3(seed: int, env_id: str = "Pendulum-v1") -> _harness.Trainer:
    kusari_rl.misc.set_random_seed(seed)
    env = make_env(env_id, seed)
    obs_size = env.observation_space.shape[0]
    action_size = env.action_space.shape[0]
    hidden = HIDDEN
    policy = policies.FCDeterministicPolicy(
        obs_size,
        n_hidden_layers=2,
        n_hidden_channels=hidden,
        action_size=action_size,
        min_action=env.action_space.low,
        max_action=env.action_space.high,
    )
    q1 = _mlp_q(obs_size, action_size, hidden)
    q2 = _mlp_q(obs_size, action_size, hidden)
    lr = 1e-3
    agent = agents.TD3(
        policy,
        q1,
        q2,
        _adam(policy, lr),
        _adam(q1, lr),
        _adam(q2, lr),
        replay_buffers.ReplayBuffer(10**6),
        gamma=0.98,
        explorer=explorers.AdditiveGaussian(
            scale=0.1, low=env.action_space.low, high=env.action_space.high
        ),
        replay_start_size=1000,
        minibatch_size=256,
        phi=_phi,
        burnin_action_func=env.action_space.sample,
    )
    return SingleEnvTrainer(agent, env, seed)


def make_dqn(seed: int, env_id: str = "CartPole-v1") -> _harness.Trainer:
    kusari_rl.misc.set_random_seed(seed)
    # ChainerRL's CartPole recipe: small rewards keep the Huber loss in its
    # quadratic part, where it learns fastest.
    env = wrappers.ScaleReward(make_env(env_id, seed), 0.01)
    q_func = q_functions.FCStateQFunctionWithDiscreteAction(
        env.observation_space.shape[0], int(env.action_space.n), 100, 2
    )
    opt = kusari.optimizers.Adam(alpha=1e-3, eps=1e-2)
    opt.setup(q_func)
    agent = agents.DoubleDQN(
        q_func,
        opt,
        replay_buffers.ReplayBuffer(100_000),
        gamma=0.99,
        explorer=explorers.LinearDecayEpsilonGreedy(
            1.0, 0.05, 10_000, env.action_space.sample
        ),
        replay_start_size=1000,
        minibatch_size=32,
        update_interval=1,
        target_update_interval=100,
        phi=_phi,
    )
    return SingleEnvTrainer(agent, env, seed)


def _actor_critic_model(env: gym.Env) -> Any:
    from kusari_rl.agents.a2c import A2CSeparateModel

    obs_size = env.observation_space.shape[0]
    pi = policies.FCSoftmaxPolicy(
        obs_size, env.action_space, 2, 64, nonlinearity=F.tanh, last_wscale=0.01
    )
    vf = kusari_rl.v_functions.FCVFunction(obs_size, 2, 64, nonlinearity=F.tanh)
    return A2CSeparateModel(pi, vf)


N_ENVS = 8


def make_ppo(seed: int, env_id: str = "CartPole-v1") -> _harness.Trainer:
    kusari_rl.misc.set_random_seed(seed)
    envs = [make_env(env_id, seed + i) for i in range(N_ENVS)]
    model = _actor_critic_model(envs[0])
    opt = kusari.optimizers.Adam(alpha=1e-3, eps=1e-5)
    opt.setup(model)
    agent = agents.PPO(
        model,
        opt,
        gamma=0.98,
        lambd=0.8,
        update_interval=32 * N_ENVS,
        minibatch_size=64,
        epochs=10,
        entropy_coef=0.0,
        act_deterministically=True,
        phi=_phi,
    )
    return BatchEnvTrainer(agent, envs, seed)


def make_a2c(seed: int, env_id: str = "CartPole-v1") -> _harness.Trainer:
    kusari_rl.misc.set_random_seed(seed)
    envs = [make_env(env_id, seed + i) for i in range(N_ENVS)]
    model = _actor_critic_model(envs[0])
    opt = kusari.optimizers.RMSprop(lr=7e-4, alpha=0.99, eps=1e-5)
    opt.setup(model)
    agent = agents.A2C(
        model,
        opt,
        gamma=0.99,
        num_processes=N_ENVS,
        update_steps=5,
        entropy_coeff=0.0,
        act_deterministically=True,
        phi=_phi,
    )
    return BatchEnvTrainer(agent, envs, seed)


FACTORIES: dict[str, Callable[[int], _harness.Trainer]] = {
    "SAC": make_sac,
    "TD3": make_td3,
    "DQN": make_dqn,
    "PPO": make_ppo,
    "A2C": make_a2c,
}
