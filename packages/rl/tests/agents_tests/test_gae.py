"""GAE and rollout bookkeeping: terminal vs. time-limit cut, by hand."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import kusari
import kusari.links as L
from kusari_rl.agents import PPO
from kusari_rl.agents._on_policy import compute_gae, explained_variance
from kusari_rl.distribution import SoftmaxDistribution

GAMMA, LAMBD = 0.9, 0.8


def _case(terminal: bool, cut_value: float) -> dict[str, np.ndarray]:
    # env 0: no episode end, the last step bootstraps from V = 2.0.
    # env 1: the episode ends at t = 1 (terminal or cut), next_v there = cut_value.
    return {
        "rewards": np.array([[1.0, 1.0], [2.0, 1.0], [3.0, 1.0]]),
        "values": np.array([[0.5, 0.2], [1.0, 0.4], [1.5, 0.6]]),
        "next_values": np.array([[1.0, 0.4], [1.5, cut_value], [2.0, 0.7]]),
        "terminals": np.array([[0, 0], [0, terminal], [0, 0]], bool),
        "ends": np.array([[0, 0], [0, 1], [0, 0]], bool),
    }


def test_gae_no_end_bootstraps_from_last_value():
    adv = compute_gae(**_case(True, 9.9), gamma=GAMMA, lambd=LAMBD)
    # delta = [1.4, 2.35, 3.3]; A2 = 3.3, A1 = 2.35 + .72 * 3.3, A0 = 1.4 + .72 * A1
    np.testing.assert_allclose(adv[:, 0], [4.80272, 4.726, 3.3], rtol=1e-6)


def test_gae_terminal_does_not_bootstrap():
    adv = compute_gae(**_case(True, 9.9), gamma=GAMMA, lambd=LAMBD)
    # delta = [1.16, 1 - 0.4, 1.03]; no accumulation across the end at t = 1
    np.testing.assert_allclose(adv[:, 1], [1.592, 0.6, 1.03], rtol=1e-6)


def test_gae_time_limit_cut_bootstraps_from_next_state_value():
    adv = compute_gae(**_case(False, 5.0), gamma=GAMMA, lambd=LAMBD)
    # delta_1 = 1 + 0.9 * 5.0 - 0.4 = 5.1 is still bootstrapped, but A_2 is
    # not carried back across the episode boundary.
    np.testing.assert_allclose(adv[:, 1], [1.16 + 0.72 * 5.1, 5.1, 1.03], rtol=1e-6)


def test_gae_lambda_one_is_discounted_return_minus_value():
    r = np.array([[1.0], [0.0], [2.0]])
    v = np.array([[0.3], [0.1], [0.2]])
    nv = np.array([[0.1], [0.2], [4.0]])
    z = np.zeros((3, 1), bool)
    adv = compute_gae(r, v, nv, z, z, gamma=0.5, lambd=1.0)
    ret = np.array([1 + 0.5 * (0 + 0.5 * (2 + 0.5 * 4.0)), 0.5 * (2 + 0.5 * 4.0), 4.0])
    np.testing.assert_allclose(adv[:, 0], ret - v[:, 0], rtol=1e-6)


def test_explained_variance():
    assert (
        explained_variance(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0])) == 1.0
    )
    assert np.isnan(explained_variance(np.ones(3), np.zeros(3)))


class _ObsValueModel(kusari.Chain):
    """Uniform policy over 2 actions; V(s) = s[0] (so values are readable)."""

    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.l = L.Linear(1, 2)

    def forward(self, x: Any) -> tuple[Any, Any]:
        logits = np.zeros((len(x), 2), np.float32)
        return SoftmaxDistribution(logits), kusari.Variable(x[:, :1].copy())


def test_rollout_uses_value_of_the_observation_an_episode_was_cut_at():
    model = _ObsValueModel()
    opt = kusari.optimizers.SGD()
    opt.setup(model)
    agent = PPO(model, opt, update_interval=6, gamma=GAMMA, lambd=LAMBD)
    captured: dict[str, Any] = {}
    agent._update_from_rollout = captured.update  # type: ignore[method-assign]

    def obs(*vals: float) -> list[np.ndarray]:
        return [np.array([v], np.float32) for v in vals]

    agent.batch_act_and_train(obs(1.0, 10.0))
    # env 0 terminates (final obs 7.0), env 1 is cut by a time limit (final 8.0)
    agent.batch_observe_and_train(
        obs(7.0, 8.0), [1.0, 1.0], [True, False], [False, True]
    )
    agent.batch_act_and_train(obs(2.0, 20.0))  # both restarted
    agent.batch_observe_and_train(
        obs(3.0, 30.0), [0.0, 0.0], [False, False], [False, False]
    )
    agent.batch_act_and_train(obs(3.0, 30.0))
    agent.batch_observe_and_train(
        obs(4.0, 40.0), [0.0, 0.0], [False, False], [False, False]
    )
    assert captured, "an update should have run after 3 steps x 2 envs"
    np.testing.assert_allclose(captured["values"], [[1, 10], [2, 20], [3, 30]])
    # next values: cut -> V(final obs) = 8, terminal -> (masked later),
    # inside an episode -> V of the next step, last step -> V(last obs)
    np.testing.assert_allclose(captured["next_values"][1:], [[3, 30], [4, 40]])
    assert captured["next_values"][0, 1] == pytest.approx(8.0)
    np.testing.assert_array_equal(captured["terminals"][0], [True, False])
    np.testing.assert_array_equal(captured["ends"][0], [True, True])
    assert captured["states"].shape == (6, 1)
