"""REINFORCE: the gradient on a hand case, baselines, cut episodes, learning."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from _on_policy_helpers import make_model, run_single

import kusari
import kusari.links as L
from kusari_rl import policies
from kusari_rl.agents import REINFORCE


def _agent(**kw) -> REINFORCE:
    # One input fixed to 1, zero weights: a uniform policy over 2 actions whose
    # logits are the weights themselves.
    pi = policies.SoftmaxPolicy(L.Linear(1, 2, nobias=True, initialW=0.0))
    opt = kusari.optimizers.SGD(lr=1.0)
    opt.setup(pi)
    return REINFORCE(pi, opt, **kw)


def _episode(agent: REINFORCE, rewards: list[float], done: bool = True) -> list[int]:
    obs = np.ones(1, np.float32)
    actions = [int(agent.act_and_train(obs, 0.0))]
    for r in rewards[:-1]:
        actions.append(int(agent.act_and_train(obs, r)))
    agent.stop_episode_and_train(obs, rewards[-1], done=done)
    return actions


def _expected_step(actions: list[int], weights: list[float], batchsize: int = 1):
    # d(-w log pi(a)) / dlogits = w (p - onehot(a)), p = [.5, .5]; SGD lr=1.
    grad = np.zeros(2)
    for a, w in zip(actions, weights):
        grad += w * (np.array([0.5, 0.5]) - np.eye(2)[a])
    return -grad / batchsize


def test_gradient_uses_reward_to_go():
    np.random.seed(0)
    agent = _agent()
    actions = _episode(agent, [1.0, 2.0, 3.0])
    # returns-to-go: [6, 5, 3]
    step = agent.model.model.W.array[:, 0]
    np.testing.assert_allclose(
        step, _expected_step(actions, [6.0, 5.0, 3.0]), rtol=1e-6
    )


def test_mean_baseline_and_batchsize():
    np.random.seed(1)
    agent = _agent(batchsize=2, baseline="mean")
    a1 = _episode(agent, [1.0, 1.0])
    np.testing.assert_array_equal(agent.model.model.W.array, 0.0)  # waits for 2
    a2 = _episode(agent, [4.0])
    returns = [2.0, 1.0, 4.0]
    b = np.mean(returns)
    step = agent.model.model.W.array[:, 0]
    expected = _expected_step(a1 + a2, [r - b for r in returns], batchsize=2)
    np.testing.assert_allclose(step, expected, rtol=1e-6, atol=1e-7)


def test_backward_separately_gives_the_same_update():
    steps = []
    for separately in (False, True):
        np.random.seed(2)
        agent = _agent(batchsize=2, backward_separately=separately)
        _episode(agent, [1.0, 0.5])
        _episode(agent, [2.0, 0.0, 1.0])
        steps.append(agent.model.model.W.array.copy())
    np.testing.assert_allclose(steps[0], steps[1], rtol=1e-6)


def test_cut_episode_is_discarded(caplog):
    np.random.seed(3)
    agent = _agent()
    with caplog.at_level(logging.INFO, logger="kusari_rl.agents.reinforce"):
        _episode(agent, [1.0, 1.0], done=False)
    np.testing.assert_array_equal(agent.model.model.W.array, 0.0)
    assert "discards episodes cut" in caplog.text
    _episode(agent, [1.0], done=True)
    assert np.abs(agent.model.model.W.array).sum() > 0


def test_bad_baseline():
    with pytest.raises(ValueError, match="baseline must be None or 'mean'"):
        _agent(baseline="median")


@pytest.mark.slow
def test_reinforce_learns_cartpole():
    """Bar: mean of the last 20 training episodes >= 150 within 60k steps."""
    np.random.seed(0)
    pi = make_model(hidden=64).pi
    opt = kusari.optimizers.Adam(1e-2)
    opt.setup(pi)
    agent = REINFORCE(pi, opt, batchsize=8, baseline="mean")
    returns = run_single(agent, steps=60000)
    assert np.mean(returns[-20:]) >= 150, returns[-20:]
