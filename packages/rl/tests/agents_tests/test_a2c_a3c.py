"""A2C and A3C: updates, truncation, shared memory across processes, learning."""

from __future__ import annotations

import multiprocessing as mp
import os

import gymnasium as gym
import numpy as np
import pytest
from _on_policy_helpers import make_model, run_single, run_vector

import kusari
import kusari.links as L
from kusari_rl.agents import A2C, A3C
from kusari_rl.experiments import train_agent_async
from kusari_rl.misc import async_
from kusari_rl.optimizers import RMSpropAsync


@pytest.fixture(autouse=True)
def _seed() -> None:
    np.random.seed(0)


# ---- A2C --------------------------------------------------------------------


def _a2c(n: int = 4, **kw) -> A2C:
    model = make_model(hidden=16)
    opt = kusari.optimizers.RMSprop(7e-4, eps=1e-5)
    opt.setup(model)
    return A2C(model, opt, gamma=0.99, num_processes=n, **kw)


@pytest.mark.parametrize("use_gae", [False, True])
def test_a2c_updates_every_update_steps(use_gae):
    agent = _a2c(n=4, update_steps=5, use_gae=use_gae)
    before = agent.model.v.model.output.W.array.copy()
    run_vector(agent, n_envs=4, steps=4 * 5 * 3)
    assert agent.optimizer.t == 3
    assert not np.allclose(before, agent.model.v.model.output.W.array)
    assert all(np.isfinite(v) for _, v in agent.get_statistics())


def test_a2c_refuses_a_different_number_of_envs():
    agent = _a2c(n=4)
    with pytest.raises(ValueError, match="num_processes=4 but got 2 observations"):
        agent.batch_act_and_train([np.zeros(4, np.float32)] * 2)


def test_a2c_save_load(tmp_path):
    agent = _a2c(n=2, update_steps=2)
    run_vector(agent, n_envs=2, steps=8)
    agent.save(str(tmp_path))
    other = _a2c(n=2)
    other.load(str(tmp_path))
    x = np.ones((1, 4), np.float32)
    np.testing.assert_allclose(
        other.model.pi(x).all_prob.array, agent.model.pi(x).all_prob.array
    )


def test_a2c_obs_normalizer_learns_from_rollouts_and_feeds_the_model(tmp_path):
    from kusari_rl.links import EmpiricalNormalization

    norm = EmpiricalNormalization(4, clip_threshold=5.0)
    agent = _a2c(n=4, update_steps=5, obs_normalizer=norm)
    seen, fed = [], []
    experience = norm.experience
    pi_and_v = agent.model.pi_and_v

    def spy_experience(x):
        seen.append(np.array(x))
        return experience(x)

    def spy_pi_and_v(x):
        fed.append(np.array(getattr(x, "array", x)))
        return pi_and_v(x)

    norm.experience = spy_experience
    agent.model.pi_and_v = spy_pi_and_v
    run_vector(agent, n_envs=4, steps=4 * 5 * 2)
    # Updated with each rollout of 4 envs x 5 steps.
    assert [len(x) for x in seen] == [20, 20]
    assert int(norm.count) == 40
    # The update's forward pass (the 20-row call) gets the rollout's raw
    # states normalised as they were while acting: with the statistics of
    # the rollouts before it, not with those that include it.
    update_inputs = [x for x in fed if len(x) == 20]
    assert len(update_inputs) == 2
    # Before it: five acting passes, then V of the last observations.
    last = max(i for i, x in enumerate(fed) if len(x) == 20)
    acted_on = np.concatenate(fed[last - 6 : last - 1])
    np.testing.assert_allclose(update_inputs[-1], acted_on, rtol=1e-6)
    assert not np.allclose(
        update_inputs[-1], norm(seen[-1], update=False).array, atol=1e-3
    )
    assert not np.allclose(update_inputs[-1], seen[-1])
    # Acting (one row per env) sees normalised observations too.
    assert all(np.abs(x).max() <= 5.0 for x in fed)
    agent.save(str(tmp_path))
    assert (tmp_path / "obs_normalizer.npz").exists()
    other = _a2c(n=4, obs_normalizer=EmpiricalNormalization(4))
    other.load(str(tmp_path))
    np.testing.assert_allclose(other.obs_normalizer.mean, norm.mean)


# ---- A3C --------------------------------------------------------------------


def _a3c(**kw) -> A3C:
    model = make_model(hidden=16)
    opt = RMSpropAsync(7e-4, eps=1e-1, alpha=0.99)
    opt.setup(model)
    return A3C(model, opt, t_max=5, gamma=0.5, **kw)


def test_a3c_n_step_returns_by_hand():
    agent = _a3c()
    agent._rewards = [1.0, 2.0]
    returns, advs = agent._n_step_returns(4.0, np.array([0.5, 1.0]))
    # R_1 = 2 + 0.5 * 4 = 4, R_0 = 1 + 0.5 * 4 = 3
    np.testing.assert_allclose(returns, [3.0, 4.0])
    np.testing.assert_allclose(advs, [2.5, 3.0])


@pytest.mark.parametrize("done,bootstraps", [(True, False), (False, True)])
def test_a3c_bootstraps_only_after_a_cut(done, bootstraps):
    agent = _a3c()
    seen = []
    agent._update = seen.append  # type: ignore[method-assign]
    obs = np.ones(4, np.float32)
    agent.act_and_train(obs, 0.0)
    agent.stop_episode_and_train(obs * 2, 1.0, done=done)
    assert (seen[0] is not None) == bootstraps
    if bootstraps:
        np.testing.assert_array_equal(seen[0], (obs * 2)[None])


def test_a3c_update_moves_shared_model_and_syncs_local_copy():
    agent = _a3c()
    before = agent.shared_model.pi.model.output.W.array.copy()
    run_single(agent, steps=12)
    assert agent.optimizer.t >= 2
    after = agent.shared_model.pi.model.output.W.array
    assert not np.allclose(before, after)
    np.testing.assert_array_equal(agent.model.pi.model.output.W.array, after)


def _add_one(link: kusari.Link) -> None:
    for p in link.params():
        p.array += 1.0


def test_shared_params_and_states_are_seen_across_processes():
    link = L.Linear(3, 2)
    opt = RMSpropAsync()
    opt.setup(link)
    async_.share_params_as_shared_arrays(link)
    async_.share_states_as_shared_arrays(opt)
    w0 = link.W.array.copy()

    def work(idx: int) -> None:
        _add_one(link)
        link.W.grad = np.ones_like(link.W.array)
        link.b.grad = np.ones_like(link.b.array)
        opt.update()

    async_.run_async(2, work)
    # Both children added 1 and took an RMSprop step on the shared arrays.
    assert np.all(link.W.array > w0 + 1.5)
    ms = link.W.update_rule.state["ms"]
    assert np.all(ms > 0)


def test_run_async_reports_a_failed_process():
    def work(idx: int) -> None:
        if idx == 1:
            os._exit(3)

    with pytest.raises(async_.AbnormalExitError, match="process 1 exited with code 3"):
        async_.run_async(2, work)


def test_sharing_refuses_uninitialised_parameters():
    with pytest.raises(ValueError, match="not initialised"):
        async_.share_params_as_shared_arrays(L.Linear(None, 2))


def test_train_agent_async_trains_shared_model(tmp_path):
    agent = _a3c()
    before = agent.shared_model.v.model.output.W.array.copy()

    def make_env(idx: int, test: bool) -> gym.Env:
        return gym.make("CartPole-v1")

    out = train_agent_async(
        outdir=str(tmp_path),
        processes=2,
        make_env=make_env,
        steps=300,
        eval_interval=150,
        eval_n_steps=None,
        eval_n_episodes=1,
        agent=agent,
        max_episode_len=50,
    )
    assert out is agent
    assert not np.allclose(before, agent.shared_model.v.model.output.W.array)
    np.testing.assert_array_equal(
        agent.model.v.model.output.W.array, agent.shared_model.v.model.output.W.array
    )
    assert any(name.endswith("_finish") for name in os.listdir(tmp_path))
    assert (tmp_path / "scores.txt").exists()
    assert mp.active_children() == []


@pytest.mark.slow
def test_a2c_solves_cartpole():
    """Bar: a 20-episode mean >= 195 is reached within 100k steps (A2C is noisy)."""
    model = make_model(hidden=64)
    opt = kusari.optimizers.RMSprop(7e-4, eps=1e-5, alpha=0.99)
    opt.setup(model)
    agent = A2C(
        model, opt, gamma=0.99, num_processes=8, update_steps=5, use_gae=True, tau=0.95
    )
    returns = run_vector(agent, n_envs=8, steps=100000)
    best = max(np.mean(returns[i : i + 20]) for i in range(len(returns) - 20))
    assert best >= 195


@pytest.mark.slow
def test_a3c_learns_cartpole(tmp_path):
    """Bar: with 2 worker processes, an evaluation reaches 195 within 100k steps."""
    model = make_model(hidden=64)
    opt = RMSpropAsync(7e-4, eps=1e-1, alpha=0.99)
    opt.setup(model)
    agent = A3C(model, opt, t_max=5, gamma=0.99, beta=1e-2, act_deterministically=True)
    train_agent_async(
        outdir=str(tmp_path),
        processes=2,
        steps=100000,
        make_env=lambda idx, test: gym.make("CartPole-v1"),
        eval_interval=5000,
        eval_n_steps=None,
        eval_n_episodes=5,
        agent=agent,
        successful_score=195,
    )
    assert (tmp_path / "successful").exists()
