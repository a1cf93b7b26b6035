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
import kusari_rl
from kusari_rl import (
    agents,
    explorers,
    policies,
    q_functions,
    replay_buffers,
)


def _phi(x: Any) -> Any:
    return np.asarray(x, dtype=np.float32)


def make_env(env_id: str, seed: int) -> gym.Env:
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


class _ConcatMLP(kusari.Chain):
    """Q(s, a): an MLP on the concatenation of state and action."""

    def __init__(self, in_size: int, hidden: list[int]) -> None:
        super().__init__()
        with self.init_scope():
            self.mlp = kusari_rl.links.MLP(in_size, 1, hidden)

    def forward(self, state: Any, action: Any) -> Any:
        return self.mlp(F.concat((state, action), axis=1))


def _mlp_q(obs_size: int, action_size: int, hidden: list[int]) -> Any:
    return q_functions.SingleModelStateActionQFunction(
        _ConcatMLP(obs_size + action_size, hidden)
    )


def _adam(link: Any, lr: float, **kwargs: Any) -> Any:
    opt = kusari.optimizers.Adam(alpha=lr, **kwargs)
    opt.setup(link)
    return opt


# Network sizes are SB3's for each algorithm (its MlpPolicy defaults, or the
# zoo's net_arch), so that steps and env-steps/s compare like with like.
SAC_HIDDEN = [256, 256]
TD3_HIDDEN = [400, 300]
DQN_HIDDEN = 256


def make_sac(seed: int, env_id: str = "Pendulum-v1") -> _harness.Trainer:
    """rl-zoo's Pendulum-v1 SAC: SB3's defaults (256-256 networks, minibatch
    256, tau 0.005, learned temperature) with learning rate 1e-3."""
    kusari_rl.misc.set_random_seed(seed)
    env = make_env(env_id, seed)
    obs_size = env.observation_space.shape[0]
    action_size = env.action_space.shape[0]
    policy = kusari.Sequential(
        kusari_rl.links.MLP(obs_size, 2 * action_size, SAC_HIDDEN),
        policies.SquashedDiagonalGaussianHead(),
    )
    q1 = _mlp_q(obs_size, action_size, SAC_HIDDEN)
    q2 = _mlp_q(obs_size, action_size, SAC_HIDDEN)
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
        # SB3 starts at 100 steps and samples with replacement; kusari's
        # buffer needs a minibatch worth of transitions first.
        replay_start_size=256,
        minibatch_size=256,
        soft_update_tau=5e-3,
        phi=_phi,
        burnin_action_func=env.action_space.sample,
        entropy_target=-float(action_size),
        temperature_optimizer=kusari.optimizers.Adam(alpha=lr),
    )
    return SingleEnvTrainer(agent, env, seed)


def make_td3(seed: int, env_id: str = "Pendulum-v1") -> _harness.Trainer:
    """rl-zoo's Pendulum-v1 TD3 (400-300 nets, gamma 0.98, noise 0.1), except
    that learning starts after 1000 random steps instead of 10000."""
    kusari_rl.misc.set_random_seed(seed)
    env = make_env(env_id, seed)
    obs_size = env.observation_space.shape[0]
    action_size = env.action_space.shape[0]
    low, high = env.action_space.low, env.action_space.high
    policy = policies.ContinuousDeterministicPolicy(
        kusari_rl.links.MLP(obs_size, action_size, TD3_HIDDEN),
        action_filter=lambda x: kusari_rl.functions.bound_by_tanh(x, low, high),
    )
    q1 = _mlp_q(obs_size, action_size, TD3_HIDDEN)
    q2 = _mlp_q(obs_size, action_size, TD3_HIDDEN)
    lr = 1e-3
    agent = agents.TD3(
        policy,
        q1,
        q2,
        _adam(policy, lr),
        _adam(q1, lr),
        _adam(q2, lr),
        replay_buffers.ReplayBuffer(200_000),
        gamma=0.98,
        explorer=explorers.AdditiveGaussian(scale=0.1, low=low, high=high),
        replay_start_size=1000,
        minibatch_size=256,
        phi=_phi,
        burnin_action_func=env.action_space.sample,
    )
    return SingleEnvTrainer(agent, env, seed)


def make_dqn(
    seed: int, env_id: str = "CartPole-v1", total_steps: int = 50_000
) -> _harness.Trainer:
    """rl-zoo's CartPole-v1 DQN: 256-256 net, Adam 2.3e-3, minibatch 64,
    128 updates every 256 steps, target sync every 10 steps, epsilon
    1 -> 0.04 over the first 16% of the budget, gradient norm <= 10."""
    kusari_rl.misc.set_random_seed(seed)
    env = make_env(env_id, seed)
    q_func = q_functions.FCStateQFunctionWithDiscreteAction(
        env.observation_space.shape[0], int(env.action_space.n), DQN_HIDDEN, 2
    )
    agent = agents.DQN(
        q_func,
        _adam(q_func, 2.3e-3),
        replay_buffers.ReplayBuffer(100_000),
        gamma=0.99,
        explorer=explorers.LinearDecayEpsilonGreedy(
            1.0, 0.04, int(0.16 * total_steps), env.action_space.sample
        ),
        replay_start_size=1000,
        minibatch_size=64,
        update_interval=256,
        n_times_update=128,
        target_update_interval=10,
        max_grad_norm=10.0,
        phi=_phi,
    )
    return SingleEnvTrainer(agent, env, seed)


def _orthogonal_init(link: Any, output_gain: float) -> None:
    """SB3's actor-critic initialisation: orthogonal weights with gain
    sqrt(2) in the hidden layers and ``output_gain`` in the last, zero biases."""
    for name, param in link.namedparams():
        if name.endswith("/b"):
            param.array[...] = 0.0
        else:
            gain = output_gain if "/output/" in name else np.sqrt(2.0)
            kusari.initializers.Orthogonal(scale=gain)(param.array)


def _actor_critic_model(env: gym.Env) -> Any:
    from kusari_rl.agents.a2c import A2CSeparateModel

    obs_size = env.observation_space.shape[0]
    pi = policies.FCSoftmaxPolicy(
        obs_size, env.action_space, 2, 64, nonlinearity=F.tanh, last_wscale=0.01
    )
    vf = kusari_rl.v_functions.FCVFunction(obs_size, 2, 64, nonlinearity=F.tanh)
    _orthogonal_init(pi, 0.01)
    _orthogonal_init(vf, 1.0)
    return A2CSeparateModel(pi, vf)


N_ENVS = 8


class _PPOTrainer(BatchEnvTrainer):
    """Decays PPO's learning rate and clip range linearly to 0 over the
    budget, as rl-zoo's ``lin_1e-3`` / ``lin_0.2`` schedules do in SB3."""

    def __init__(
        self, agent: Any, envs: list[gym.Env], seed: int, total_steps: int
    ) -> None:
        super().__init__(agent, envs, seed)
        self.total_steps = total_steps
        self.done_steps = 0
        self.lr0 = agent.optimizer.alpha
        self.clip0 = agent.clip_eps

    def train(self, n_steps: int) -> None:
        n = len(self.envs)
        for _ in range(max(1, n_steps // n)):
            left = max(0.0, 1.0 - self.done_steps / self.total_steps)
            self.agent.optimizer.alpha = self.lr0 * left
            self.agent.clip_eps = self.clip0 * left
            super().train(n)
            self.done_steps += n


def make_ppo(
    seed: int, env_id: str = "CartPole-v1", total_steps: int = 100_000
) -> _harness.Trainer:
    """rl-zoo's CartPole-v1 PPO: 8 envs x 32 steps, 20 epochs of minibatch
    256, gamma 0.98, lambda 0.8, no entropy bonus, learning rate 1e-3 and
    clip range 0.2 decaying linearly, SB3's value coefficient 0.5 and
    gradient norm <= 0.5."""
    kusari_rl.misc.set_random_seed(seed)
    envs = [make_env(env_id, seed + i) for i in range(N_ENVS)]
    model = _actor_critic_model(envs[0])
    opt = _adam(model, 1e-3, eps=1e-5)
    opt.add_hook(kusari.optimizer_hooks.GradientClipping(0.5))
    agent = agents.PPO(
        model,
        opt,
        gamma=0.98,
        lambd=0.8,
        update_interval=32 * N_ENVS,
        minibatch_size=256,
        epochs=20,
        clip_eps=0.2,
        value_func_coef=0.5,
        entropy_coef=0.0,
        act_deterministically=True,
        phi=_phi,
    )
    return _PPOTrainer(agent, envs, seed, total_steps)


def make_a2c(seed: int, env_id: str = "CartPole-v1") -> _harness.Trainer:
    """SB3's A2C defaults (rl-zoo's CartPole-v1 entry adds only 8 envs and
    no entropy bonus): 5 steps, RMSprop 7e-4, value coefficient 0.5,
    gradient norm <= 0.5."""
    kusari_rl.misc.set_random_seed(seed)
    envs = [make_env(env_id, seed + i) for i in range(N_ENVS)]
    model = _actor_critic_model(envs[0])
    opt = kusari.optimizers.RMSprop(lr=7e-4, alpha=0.99, eps=1e-5)
    opt.setup(model)
    opt.add_hook(kusari.optimizer_hooks.GradientClipping(0.5))
    agent = agents.A2C(
        model,
        opt,
        gamma=0.99,
        num_processes=N_ENVS,
        update_steps=5,
        v_loss_coef=0.5,
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
