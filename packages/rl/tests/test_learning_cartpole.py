"""DQN learns CartPole-v1 (slow: about a minute on one core).

The bar is a best mean evaluation return of 150 over 10 episodes (a random
policy scores about 20, 500 is the maximum). One DQN seed's evaluations rise
and then oscillate or collapse (this one peaked at 202 after ~6k steps here),
so a higher bar on one seed tests luck more than learning; solving (475, three
seeds, against Stable-Baselines3) is what benchmarks/bench_cartpole.py measures.
"""

import gymnasium as gym
import numpy as np
import pytest

import kusari
from kusari_rl import agents, experiments, explorers, misc, q_functions, replay_buffers


@pytest.mark.slow
def test_double_dqn_learns_cartpole(tmp_path):
    # Learning, not solving: one DQN seed on CartPole rises and collapses
    # (SB3's does too; see benchmarks/README.md, where 3 seeds are compared to
    # the 475 bar). A random policy scores about 20; 150 is clearly learned.
    misc.set_random_seed(0)
    env = gym.make("CartPole-v1")
    env.reset(seed=0)
    env.action_space.seed(0)
    eval_env = gym.make("CartPole-v1")
    eval_env.reset(seed=100)
    q = q_functions.FCStateQFunctionWithDiscreteAction(4, 2, 64, 2)
    opt = kusari.optimizers.Adam(5e-4)
    opt.setup(q)
    agent = agents.DoubleDQN(
        q,
        opt,
        replay_buffers.ReplayBuffer(50000),
        0.99,
        explorers.LinearDecayEpsilonGreedy(1.0, 0.02, 8000, env.action_space.sample),
        replay_start_size=1000,
        target_update_interval=100,
        minibatch_size=64,
        phi=lambda x: np.asarray(x, dtype=np.float32),
    )
    history = experiments.train_agent_with_evaluation(
        agent,
        env,
        steps=30000,
        eval_n_steps=None,
        eval_n_episodes=10,
        eval_interval=2000,
        outdir=str(tmp_path),
        eval_env=eval_env,
        successful_score=400,
    )
    assert max(h["mean"] for h in history) >= 150, history
