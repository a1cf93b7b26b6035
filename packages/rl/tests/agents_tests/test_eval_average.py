"""eval_average_decay: evaluation acts with a moving average of the weights.

DQN (and its subclasses), PPO and A2C keep an exponential moving average of
their model's parameters when the option is set, update it after every
optimizer step, act with it outside training only, and save it.
"""

from __future__ import annotations

import numpy as np
import pytest
from _dqn_helpers import linear_q, sgd
from _on_policy_helpers import make_model, run_vector

import kusari
from kusari_rl import explorers, replay_buffers
from kusari_rl.agents import A2C, DQN, PPO, DoubleDQN

OBS = np.array([1.0, 1.0], np.float32)


@pytest.fixture(autouse=True)
def _seed() -> None:
    np.random.seed(0)


def _dqn(cls=DQN, decay=0.5, W=None, **kwargs):
    q = linear_q(W)
    return cls(
        q,
        sgd(q, lr=0.1),
        replay_buffers.ReplayBuffer(100),
        0.9,
        explorers.Greedy(),
        replay_start_size=1,
        minibatch_size=1,
        target_update_interval=1000,
        eval_average_decay=decay,
        **kwargs,
    )


def _transition():
    return [
        {
            "state": np.array([1.0, 0.0], np.float32),
            "action": 0,
            "reward": 3.0,
            "next_state": np.array([0.0, 0.0], np.float32),
            "next_action": 0,
            "is_state_terminal": True,
        }
    ]


def _ppo(decay=0.9, **kwargs):
    model = make_model(hidden=8)
    opt = kusari.optimizers.Adam(1e-2)
    opt.setup(model)
    return PPO(
        model,
        opt,
        update_interval=32,
        minibatch_size=16,
        epochs=2,
        act_deterministically=True,
        eval_average_decay=decay,
        **kwargs,
    )


def _a2c(decay=0.9):
    model = make_model(hidden=8)
    opt = kusari.optimizers.RMSprop(lr=1e-2, eps=1e-5)
    opt.setup(model)
    return A2C(
        model,
        opt,
        gamma=0.99,
        num_processes=4,
        update_steps=4,
        act_deterministically=True,
        eval_average_decay=decay,
    )


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.5, 1.5])
def test_decay_outside_zero_one_is_refused_with_the_agent_name(bad):
    with pytest.raises(
        ValueError, match=r"DQN: eval_average_decay must be in \(0, 1\)"
    ):
        _dqn(decay=bad)
    with pytest.raises(ValueError, match=r"PPO: eval_average_decay"):
        _ppo(decay=bad)
    with pytest.raises(ValueError, match=r"A2C: eval_average_decay"):
        _a2c(decay=bad)


@pytest.mark.parametrize("bad", ["0.9", True, [0.9]])
def test_decay_of_the_wrong_type_is_refused(bad):
    with pytest.raises(
        TypeError, match=r"DoubleDQN: eval_average_decay must be a float"
    ):
        _dqn(cls=DoubleDQN, decay=bad)


def test_without_the_option_there_is_no_average_and_act_uses_the_model():
    agent = _dqn(decay=None)
    assert agent.eval_average_model is None
    assert agent._eval_model() is agent.model
    agent.update([_transition()])
    assert agent.eval_average_updates == 0


def test_dqn_average_is_the_bias_corrected_moving_average_by_hand():
    agent = _dqn(decay=0.5)
    W = agent.model.l.W
    avg = agent.eval_average_model.l.W
    np.testing.assert_array_equal(avg.array, W.array)
    # The average is a separate copy that the optimizer never touches.
    assert avg is not W
    assert agent.eval_average_model.l.update_enabled is False
    history = []
    for n in range(1, 11):
        agent.update([_transition()])
        history.append(W.array.copy())
        # The bias-corrected average of the weights after each update:
        # weights 0.5 ** (n - i), normalised; the initial weights count not.
        weights = 0.5 ** np.arange(n - 1, -1, -1)
        expected = np.tensordot(weights / weights.sum(), np.stack(history), 1)
        np.testing.assert_allclose(avg.array, expected, rtol=1e-5, atol=1e-6)
        if n == 1:
            np.testing.assert_allclose(avg.array, W.array, rtol=1e-6)
    assert agent.eval_average_updates == 10
    # The live weights did move, so the average lags behind them.
    assert not np.allclose(avg.array, W.array)


def test_dqn_acts_with_the_average_outside_training_only():
    # Live Q prefers action 1 on OBS; the average is set to prefer action 0.
    agent = _dqn(W=np.array([[1.0, 0.0], [0.0, 2.0]], np.float32))
    agent.eval_average_model.l.W.array[...] = [[3.0, 0.0], [0.0, 1.0]]
    # ChainerRL's convention: training acts (greedy explorer) with the live
    # model; act/batch_act, the evaluation calls, with the average.
    assert agent.act_and_train(OBS, 0.0) == 1
    assert agent.act(OBS) == 0
    assert agent.batch_act([OBS, OBS]).tolist() == [0, 0]
    assert agent.batch_act_and_train([OBS]).tolist() == [1]
    # PFRL's convention: act learns in training mode, evaluates in eval_mode().
    pfrl = _dqn(W=np.array([[1.0, 0.0], [0.0, 2.0]], np.float32))
    pfrl.eval_average_model.l.W.array[...] = [[3.0, 0.0], [0.0, 1.0]]
    assert pfrl.act(OBS) == 1
    with pfrl.eval_mode():
        assert pfrl.act(OBS) == 0


def test_dqn_saves_and_loads_the_average(tmp_path):
    agent = _dqn()
    agent.update([_transition()])
    agent.save(str(tmp_path))
    assert (tmp_path / "eval_average_model.npz").exists()
    other = _dqn(W=np.zeros((2, 2), np.float32))
    other.load(str(tmp_path))
    np.testing.assert_array_equal(
        other.eval_average_model.l.W.array, agent.eval_average_model.l.W.array
    )
    assert "eval_average_updates" in DQN.snapshot_attributes
    # Without the option nothing extra is written.
    plain = _dqn(decay=None)
    plain.save(str(tmp_path / "plain"))
    assert not (tmp_path / "plain" / "eval_average_model.npz").exists()


@pytest.mark.parametrize("make", [_ppo, _a2c], ids=["PPO", "A2C"])
def test_on_policy_average_is_updated_after_every_optimizer_step(make):
    agent = make(decay=0.9)
    init = agent.model.pi.model.output.W.array.copy()
    run_vector(agent, n_envs=4, steps=64)
    assert agent.optimizer.t > 0
    assert agent.eval_average_updates == agent.optimizer.t
    avg = agent.eval_average_model.pi.model.output.W.array
    live = agent.model.pi.model.output.W.array
    assert not np.allclose(avg, live)
    assert not np.allclose(avg, init)
    assert type(agent).__name__ in ("PPO", "A2C")
    assert "eval_average_updates" in type(agent).snapshot_attributes


@pytest.mark.parametrize("make", [_ppo, _a2c], ids=["PPO", "A2C"])
def test_on_policy_acts_with_the_average_outside_training_only(make):
    agent = make()
    obs = np.zeros(4, np.float32)

    def force(model, action):
        # Zero weights and a large bias: the policy's most probable action
        # is ``action`` whatever the observation.
        out = model.pi.model.output
        out.W.array[...] = 0.0
        out.b.array[...] = 0.0
        out.b.array[action] = 10.0

    force(agent.model, 1)
    force(agent.eval_average_model, 0)
    # PFRL's convention: act collects with the live model while training
    # (sampling; probability ~1) and evaluates with the average in eval_mode().
    assert agent.batch_act([obs] * 4).tolist() == [1, 1, 1, 1]
    with agent.eval_mode():
        assert agent.act(obs) == 0
        assert agent.batch_act([obs, obs]).tolist() == [0, 0]
    # ChainerRL's convention: *_and_train with the live model, act with the
    # average.
    assert agent.batch_act_and_train([obs] * 4).tolist() == [1, 1, 1, 1]
    assert agent.act(obs) == 0
    assert agent.batch_act([obs, obs]).tolist() == [0, 0]


def test_ppo_saves_and_loads_the_average(tmp_path):
    agent = _ppo()
    run_vector(agent, n_envs=4, steps=32)
    agent.save(str(tmp_path))
    other = _ppo()
    other.load(str(tmp_path))
    np.testing.assert_array_equal(
        other.eval_average_model.pi.model.output.W.array,
        agent.eval_average_model.pi.model.output.W.array,
    )
