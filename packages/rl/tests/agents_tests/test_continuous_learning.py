"""SAC and TD3 learn Pendulum-v1 within a step budget (slow)."""

import gymnasium as gym
import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari_rl import explorers, misc, replay_buffers, wrappers
from kusari_rl.agents import TD3, SoftActorCritic
from kusari_rl.policies import FCDeterministicPolicy, SquashedDiagonalGaussianHead
from kusari_rl.q_functions import FCSAQFunction

HIDDEN = 64


def _env(seed):
    env = wrappers.NormalizeActionSpace(
        wrappers.CastObservationToFloat32(gym.make("Pendulum-v1"))
    )
    env.reset(seed=seed)
    env.action_space.seed(seed)
    return env


def _adam(link, lr=1e-3):
    opt = kusari.optimizers.Adam(alpha=lr)
    opt.setup(link)
    return opt


def _train_and_evaluate(agent, steps, seed=0, n_eval=5):
    env = _env(seed)
    obs, _ = env.reset(seed=seed)
    reward = 0.0
    for _ in range(steps):
        obs, reward, terminated, truncated, _ = env.step(
            agent.act_and_train(obs, reward)
        )
        if terminated or truncated:
            agent.stop_episode_and_train(obs, reward, done=terminated)
            obs, _ = env.reset()
            reward = 0.0
    eval_env = _env(seed + 1000)
    returns = []
    for i in range(n_eval):
        obs, _ = eval_env.reset(seed=seed + 1000 + i)
        total, done = 0.0, False
        while not done:
            obs, r, terminated, truncated, _ = eval_env.step(agent.act(obs))
            total += r
            done = terminated or truncated
        returns.append(total)
    return float(np.mean(returns))


def _qs(obs_size, action_size):
    return (
        FCSAQFunction(obs_size, action_size, HIDDEN, 2),
        FCSAQFunction(obs_size, action_size, HIDDEN, 2),
    )


@pytest.mark.slow
def test_sac_learns_pendulum():
    misc.set_random_seed(0)
    policy = kusari.Sequential(
        L.Linear(3, HIDDEN),
        F.relu,
        L.Linear(HIDDEN, HIDDEN),
        F.relu,
        L.Linear(HIDDEN, 2),
        SquashedDiagonalGaussianHead(),
    )
    q1, q2 = _qs(3, 1)
    agent = SoftActorCritic(
        policy,
        q1,
        q2,
        _adam(policy),
        _adam(q1),
        _adam(q2),
        replay_buffers.ReplayBuffer(10**5),
        gamma=0.99,
        replay_start_size=500,
        minibatch_size=256,
        burnin_action_func=_env(0).action_space.sample,
        entropy_target=-1.0,
        temperature_optimizer=kusari.optimizers.Adam(1e-3),
    )
    assert _train_and_evaluate(agent, 5000) >= -400


@pytest.mark.slow
def test_td3_learns_pendulum():
    misc.set_random_seed(0)
    policy = FCDeterministicPolicy(
        3, 2, HIDDEN, 1, min_action=-np.ones(1), max_action=np.ones(1)
    )
    q1, q2 = _qs(3, 1)
    agent = TD3(
        policy,
        q1,
        q2,
        _adam(policy),
        _adam(q1),
        _adam(q2),
        replay_buffers.ReplayBuffer(10**5),
        gamma=0.98,
        explorer=explorers.AdditiveGaussian(0.1, -1.0, 1.0),
        replay_start_size=1000,
        minibatch_size=256,
        burnin_action_func=_env(0).action_space.sample,
    )
    assert _train_and_evaluate(agent, 9000) >= -400
