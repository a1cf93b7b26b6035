"""PPO: the loss on a hand case, both calling conventions, save/load, learning."""

from __future__ import annotations

import numpy as np
import pytest
from _on_policy_helpers import greedy_score, make_model, run_single, run_vector

import kusari
from kusari_rl.agents import PPO


@pytest.fixture(autouse=True)
def _seed() -> None:
    np.random.seed(0)


def _agent(hidden: int = 16, **kwargs) -> PPO:
    model = make_model(hidden=hidden)
    opt = kusari.optimizers.Adam(3e-4, eps=1e-5)
    opt.setup(model)
    return PPO(model, opt, **kwargs)


def test_loss_on_a_hand_case():
    agent = _agent(
        clip_eps=0.2, clip_eps_vf=0.5, value_func_coef=1.0, entropy_coef=0.01
    )
    log_probs = kusari.Variable(np.log(np.array([1.5, 0.5, 1.1], np.float32)))
    vs_pred = kusari.Variable(np.array([[1.0], [2.0], [0.0]], np.float32))
    loss = agent._lossfun(
        entropy=np.array([0.5, 0.7, 0.6], np.float32),
        vs_pred=vs_pred,
        log_probs=log_probs,
        vs_pred_old=np.array([[0.2], [1.0], [0.0]], np.float32),
        log_probs_old=np.zeros(3, np.float32),
        advs=np.array([1.0, -1.0, 1.0], np.float32),
        vs_teacher=np.array([[2.0], [0.0], [1.0]], np.float32),
    )
    # policy: min(r A, clip(r) A) = [1.2, -0.8, 1.1] -> -mean = -0.5
    # value: clipped preds [0.7, 1.5, 0]; max of squared errors [1.69, 4, 1] -> 2.23
    # entropy: -mean([0.5, 0.7, 0.6]) = -0.6
    assert float(loss.array) == pytest.approx(-0.5 + 2.23 - 0.006, rel=1e-5)
    assert agent.policy_loss_record[-1] == pytest.approx(-0.5, rel=1e-5)
    assert agent.value_loss_record[-1] == pytest.approx(2.23, rel=1e-5)
    loss.backward()
    # Clipped ratios get no policy gradient; the unclipped one gets -r A / n.
    np.testing.assert_allclose(
        log_probs.grad, [0.0, 0.0, -1.1 / 3], rtol=1e-5, atol=1e-7
    )
    # Value: first entry's clipped branch wins (constant: 0 gradient), second
    # and third use the unclipped error 2 (v - t) / n.
    np.testing.assert_allclose(
        vs_pred.grad.ravel(), [0.0, 4 / 3, -2 / 3], rtol=1e-5, atol=1e-7
    )


def test_loss_without_value_clipping_is_mse():
    agent = _agent(clip_eps_vf=None, entropy_coef=0.0)
    loss = agent._lossfun(
        entropy=np.zeros(2, np.float32),
        vs_pred=kusari.Variable(np.array([[1.0], [3.0]], np.float32)),
        log_probs=kusari.Variable(np.zeros(2, np.float32)),
        vs_pred_old=np.zeros((2, 1), np.float32),
        log_probs_old=np.zeros(2, np.float32),
        advs=np.array([1.0, 3.0], np.float32),
        vs_teacher=np.zeros((2, 1), np.float32),
    )
    assert float(loss.array) == pytest.approx(-2.0 + 5.0, rel=1e-6)


def test_update_runs_after_update_interval_and_changes_the_model():
    agent = _agent(update_interval=64, minibatch_size=16, epochs=2)
    before = agent.model.pi.model.output.W.array.copy()
    run_vector(agent, n_envs=4, steps=64)
    assert agent.optimizer.t == 2 * (64 // 16)
    assert not np.allclose(before, agent.model.pi.model.output.W.array)
    stats = dict(agent.get_statistics())
    assert stats["n_updates"] == 8
    assert np.isfinite(stats["average_value_loss"])


def test_single_env_and_pfrl_conventions_fill_the_same_rollout():
    agent = _agent(update_interval=1000)
    run_single(agent, steps=30)
    # 30 actions: 29 transitions are complete, the last one awaits its reward
    assert len(agent._rollout) + 1 == 30
    agent2 = _agent(update_interval=1000)
    obs = np.zeros(4, np.float32)
    a = agent2.act(obs)  # PFRL: act learns while agent.training
    assert a in (0, 1)
    agent2.observe(obs, 1.0, False, True)
    assert len(agent2._rollout) == 1
    with agent2.eval_mode():
        agent2.act(obs)
        agent2.observe(obs, 1.0, False, False)
    assert len(agent2._rollout) == 1


def test_act_deterministically_after_act_and_train():
    agent = _agent(act_deterministically=True, update_interval=1000)
    obs = np.array([0.1, 0.0, -0.1, 0.2], np.float32)
    agent.act_and_train(obs, 0.0)
    greedy = {int(agent.act(obs)) for _ in range(10)}
    assert len(greedy) == 1
    assert len(agent._rollout) == 0  # evaluation did not record anything


def test_changing_the_number_of_envs_mid_rollout_is_refused():
    agent = _agent(update_interval=1000)
    obs = [np.zeros(4, np.float32)] * 2
    agent.batch_act_and_train(obs)
    agent.batch_observe_and_train(obs, [0.0, 0.0], [False, False], [False, False])
    agent.batch_act_and_train(obs * 2)
    with pytest.raises(ValueError, match="got 4 environments.*has 2"):
        agent.batch_observe_and_train(obs * 2, [0.0] * 4, [False] * 4, [False] * 4)


def test_bad_arguments():
    with pytest.raises(TypeError, match="recurrent=True needs a model implementing"):
        _agent(recurrent=True)
    with pytest.raises(ValueError, match="minibatch_size must be a positive int"):
        _agent(minibatch_size=0)


def test_save_and_load_roundtrip(tmp_path):
    agent = _agent(update_interval=32, minibatch_size=16, epochs=1)
    run_vector(agent, n_envs=2, steps=32)
    agent.save(str(tmp_path / "agent"))
    assert (tmp_path / "agent" / "model.npz").exists()
    assert (tmp_path / "agent" / "optimizer.npz").exists()
    other = _agent()
    other.load(str(tmp_path / "agent"))
    for (n1, p1), (n2, p2) in zip(
        sorted(agent.model.namedparams()), sorted(other.model.namedparams())
    ):
        assert n1 == n2
        np.testing.assert_array_equal(p1.array, p2.array)
    assert other.optimizer.t == agent.optimizer.t


@pytest.mark.slow
def test_ppo_solves_cartpole():
    """Bar: mean of the last 20 training episodes >= 195 within 60k steps."""
    agent = _agent(
        hidden=64,
        update_interval=1024,
        minibatch_size=64,
        epochs=10,
        entropy_coef=0.0,
        act_deterministically=True,
    )
    returns = run_vector(agent, n_envs=8, steps=60000)
    assert np.mean(returns[-20:]) >= 195, returns[-20:]
    assert greedy_score(agent) >= 195


def test_obs_normalizer_is_updated_with_each_batch():
    from kusari_rl.links import EmpiricalNormalization

    norm = EmpiricalNormalization(4)
    agent = _agent(obs_normalizer=norm, update_interval=64, minibatch_size=32, epochs=1)
    run_vector(agent, n_envs=4, steps=64)
    assert float(np.abs(norm.mean).sum()) > 0  # it has seen CartPole states
    assert "obs_normalizer" in agent.saved_attributes


def test_continuous_actions_with_a_gaussian_policy():
    import gymnasium as gym

    from kusari_rl import policies, v_functions
    from kusari_rl.agents.a2c import A2CSeparateModel

    model = A2CSeparateModel(
        policies.FCGaussianPolicyWithStateIndependentCovariance(3, 1, 1, 16),
        v_functions.FCVFunction(3, 1, 16),
    )
    opt = kusari.optimizers.Adam(3e-4)
    opt.setup(model)
    agent = PPO(model, opt, update_interval=32, minibatch_size=16, epochs=1)
    env = gym.make("Pendulum-v1")
    obs, _ = env.reset(seed=0)
    r = 0.0
    for _ in range(40):
        a = agent.act_and_train(obs.astype(np.float32), r)
        assert a.shape == (1,) and a.dtype == np.float32
        obs, r, term, trunc, _ = env.step(np.clip(a, -2, 2))
    assert agent.optimizer.t == 2
    assert np.isfinite(dict(agent.get_statistics())["average_value_loss"])


def test_runs_under_the_single_env_training_loop(tmp_path):
    import gymnasium as gym

    from kusari_rl import experiments

    agent = _agent(update_interval=64, minibatch_size=32, epochs=1)
    experiments.train_agent_with_evaluation(
        agent=agent,
        env=gym.make("CartPole-v1"),
        steps=200,
        eval_n_steps=None,
        eval_n_episodes=1,
        eval_interval=100,
        outdir=str(tmp_path),
        eval_env=gym.make("CartPole-v1"),
        train_max_episode_len=30,
    )
    assert agent.optimizer.t == 3 * 2  # 3 updates of 2 minibatches
    assert (tmp_path / "200_finish" / "model.npz").exists()
    rows = (tmp_path / "scores.txt").read_text().strip().splitlines()
    assert len(rows) == 3 and "average_value_loss" in rows[0]


def test_tuple_features_are_refused_with_a_fix():
    agent = _agent(phi=lambda x: (x, x))
    with pytest.raises(TypeError, match="phi returned a tuple.*single"):
        agent.batch_act_and_train([np.zeros(4, np.float32)])
