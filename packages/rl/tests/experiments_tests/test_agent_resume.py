"""Resuming from a snapshot continues the run exactly for the replay
actor-critics and the on-policy agents too (not only the DQN family): their
acting state (step counter, a PPO rollout half collected, statistics) is part
of the snapshot."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import kusari
from kusari_rl import agents, experiments, explorers, misc, policies, q_functions
from kusari_rl.agents.a2c import A2CSeparateModel
from kusari_rl.replay_buffers import ReplayBuffer
from kusari_rl.v_functions import FCVFunction


def _adam(link, lr=1e-3):
    opt = kusari.optimizers.Adam(lr)
    opt.setup(link)
    return opt


def _td3(env):
    obs = env.observation_space.shape[0]
    act = env.action_space.shape[0]
    policy = policies.FCDeterministicPolicy(obs, 1, 16, env.action_space)
    q1 = q_functions.FCSAQFunction(obs, act, 16, 1)
    q2 = q_functions.FCSAQFunction(obs, act, 16, 1)
    low, high = env.action_space.low, env.action_space.high
    return agents.TD3(
        policy,
        q1,
        q2,
        _adam(policy),
        _adam(q1),
        _adam(q2),
        ReplayBuffer(10**4),
        gamma=0.9,
        explorer=explorers.AdditiveGaussian(0.1, low, high),
        replay_start_size=30,
        minibatch_size=8,
        policy_update_delay=2,
    )


def _ppo(env):
    obs = env.observation_space.shape[0]
    model = A2CSeparateModel(
        policies.FCSoftmaxPolicy(obs, env.action_space.n, 1, 16),
        FCVFunction(obs, 1, 16),
    )
    return agents.PPO(
        model, _adam(model, 3e-3), update_interval=64, minibatch_size=16, epochs=2
    )


# A single-env run snapshots at the first episode end after the interval:
# step 200 for Pendulum (TD3), mid-rollout for PPO's 64-step rollouts.
CASES = {
    "td3": ("Pendulum-v1", _td3, lambda a: a.policy),
    "ppo": ("CartPole-v1", _ppo, lambda a: a.model),
}


def _check_resume(tmp_path, run, stop_at, net, name):
    """A 300-step run equals one stopped at ``stop_at`` (snapshot every 150
    steps) and resumed from its snapshot, parameter for parameter."""
    full = run(tmp_path / "full", 300)
    run(tmp_path / "first", stop_at, snapshot_interval=150)
    resumed = run(tmp_path / "second", 300, resume=str(tmp_path / "first" / "snapshot"))
    for (k, a), (_, b) in zip(
        sorted(net(resumed).namedparams()), sorted(net(full).namedparams()), strict=True
    ):
        np.testing.assert_array_equal(a.array, b.array, err_msg=f"{name} {k}")


@pytest.mark.parametrize("name", sorted(CASES))
def test_resume_is_exact(tmp_path, name):
    env_id, make_agent, net = CASES[name]

    def run(outdir, steps, resume=None, snapshot_interval=None):
        misc.set_random_seed(0)
        env = gym.make(env_id)
        env.reset(seed=0)
        env.action_space.seed(0)
        agent = make_agent(env)
        experiments.train_agent_with_evaluation(
            agent,
            env,
            steps=steps,
            eval_n_steps=None,
            eval_n_episodes=1,
            eval_interval=10**6,
            outdir=str(outdir),
            snapshot_interval=snapshot_interval,
            resume=resume,
        )
        return agent

    _check_resume(tmp_path, run, stop_at=260, net=net, name=name)


@pytest.mark.parametrize("name", sorted(CASES))
def test_batch_resume_mid_episode_is_exact(tmp_path, name):
    # Vector-env runs snapshot at the interval itself, in the middle of the
    # sub-envs' episodes, with the agent's batch acting state in flight.
    env_id, make_agent, net = CASES[name]

    def run(outdir, steps, resume=None, snapshot_interval=None):
        misc.set_random_seed(0)
        venv = experiments.make_vector_env([lambda: gym.make(env_id)] * 2)
        venv.reset(seed=0)
        venv.action_space.seed(0)
        eval_env = gym.make(env_id)
        eval_env.reset(seed=1)
        agent = make_agent(eval_env)
        try:
            experiments.train_agent_batch_with_evaluation(
                agent,
                venv,
                steps=steps,
                eval_n_steps=None,
                eval_n_episodes=1,
                eval_interval=10**6,
                outdir=str(outdir),
                eval_env=eval_env,
                snapshot_interval=snapshot_interval,
                resume=resume,
                save_best_so_far_agent=False,
            )
        finally:
            venv.close()
        return agent

    _check_resume(tmp_path, run, stop_at=200, net=net, name=name)
