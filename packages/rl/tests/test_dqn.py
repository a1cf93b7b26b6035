import numpy as np
import pytest
from _dqn_helpers import as_f32, linear_q, sgd

import kusari
from kusari_rl import agents, explorers, replay_buffers
from kusari_rl.agents.dqn import compute_value_loss, compute_weighted_value_loss
from kusari_rl.replay_buffer import batch_experiences

GAMMA = 0.9


def _agent(cls=agents.DQN, buffer=None, **kwargs):
    q = linear_q()
    kwargs.setdefault("replay_start_size", 10**6)  # no automatic updates
    kwargs.setdefault("target_update_interval", 10**6)
    return cls(
        q,
        sgd(q),
        buffer if buffer is not None else replay_buffers.ReplayBuffer(),
        GAMMA,
        explorers.Greedy(),
        **kwargs,
    )


def _batch(agent, transitions):
    return batch_experiences([[t] for t in transitions], np, agent.phi, GAMMA)


def _transition(s, a, r, s2, terminal):
    return {
        "state": as_f32(s),
        "action": a,
        "reward": r,
        "next_state": as_f32(s2),
        "next_action": None,
        "is_state_terminal": terminal,
    }


def test_dqn_target_terminal_vs_truncated_hand_computed():
    agent = _agent()
    # Q(s) = [s0, 2 s1]; max Q(s'=[1, 3]) = 6.
    batch = _batch(
        agent,
        [
            _transition([1, 1], 0, 0.5, [1, 3], False),
            _transition([1, 1], 1, 0.5, [1, 3], True),
        ],
    )
    y, t = agent._compute_y_and_t(batch)
    np.testing.assert_allclose(y.array.ravel(), [1.0, 2.0])
    np.testing.assert_allclose(t.ravel(), [0.5 + GAMMA * 6.0, 0.5])
    # Huber: |1 - 5.9| > 1 -> 4.4; |2 - 0.5| > 1 -> 1.0; mean over 2.
    loss = agent._compute_loss(batch)
    assert float(loss.array) == pytest.approx((4.9 - 0.5 + 1.5 - 0.5) / 2)


def test_value_losses():
    y = as_f32([[1.0], [3.0]])
    t = as_f32([[1.5], [0.0]])
    assert float(compute_value_loss(y, t).array) == pytest.approx((0.125 + 2.5) / 2)
    sq = compute_value_loss(y, t, clip_delta=False, batch_accumulator="sum")
    assert float(sq.array) == pytest.approx(0.5 * (0.25 + 9.0))
    w = compute_weighted_value_loss(y, t, as_f32([2.0, 0.0]))
    assert float(w.array) == pytest.approx(2 * 0.125 / 2)


def test_truncation_is_stored_as_non_terminal_through_the_agent():
    agent = _agent()
    agent.act_and_train(as_f32([1, 0]), 0.0)
    agent.stop_episode_and_train(as_f32([1, 3]), 1.0, done=False)  # truncated
    agent.act_and_train(as_f32([1, 0]), 0.0)
    agent.stop_episode_and_train(as_f32([1, 3]), 1.0, done=True)  # terminated
    flags = [e[0]["is_state_terminal"] for e in agent.replay_buffer.memory]
    assert flags == [False, True]
    batch = batch_experiences(list(agent.replay_buffer.memory), np, None, GAMMA)
    _, t = agent._compute_y_and_t(batch)
    np.testing.assert_allclose(t.ravel(), [1.0 + GAMMA * 6.0, 1.0])


def test_update_moves_q_towards_target():
    agent = _agent()
    tr = _transition([1, 0], 0, 1.0, [0, 0], True)
    for _ in range(50):
        agent.update([[tr]])
    q = agent.model(as_f32([[1, 0]])).q_values.array[0, 0]
    assert q == pytest.approx(1.0, abs=0.05)
    assert agent.optimizer.t == 50
    assert agent.get_statistics()[2] == ("n_updates", 50)


def test_double_dqn_uses_online_argmax():
    agent = _agent(agents.DoubleDQN)
    # Online Q prefers action 1 at s'=[1, 3]; make the target prefer action 0.
    agent.target_model.l.W.array[...] = as_f32([[10.0, 0.0], [0.0, 1.0]])
    batch = _batch(agent, [_transition([1, 1], 0, 0.0, [1, 3], False)])
    _, t = agent._compute_y_and_t(batch)
    np.testing.assert_allclose(t.ravel(), [GAMMA * 3.0])  # target Q(s', a=1) = 3
    plain = _agent()
    plain.target_model.l.W.array[...] = as_f32([[10.0, 0.0], [0.0, 1.0]])
    _, t2 = plain._compute_y_and_t(batch)
    np.testing.assert_allclose(t2.ravel(), [GAMMA * 10.0])


@pytest.mark.parametrize("cls", [agents.PAL, agents.DoublePAL])
def test_pal_target(cls):
    agent = _agent(cls, alpha=0.5)
    batch = _batch(agent, [_transition([1, 1], 0, 0.0, [1, 3], False)])
    _, t = agent._compute_y_and_t(batch)
    # Bellman 0.9 * 6; advantages of a=0: at s: 1 - 2 = -1, at s': 1 - 6 = -5.
    np.testing.assert_allclose(t.ravel(), [GAMMA * 6.0 + 0.5 * -1.0])


def test_target_network_updates_hard_and_soft():
    agent = _agent(target_update_interval=2)
    agent.model.l.W.array[...] = 5.0
    agent.act_and_train(as_f32([1, 0]), 0.0)
    assert not np.allclose(agent.target_model.l.W.array, 5.0)
    agent.act_and_train(as_f32([1, 0]), 0.0)  # t = 2: sync
    np.testing.assert_allclose(agent.target_model.l.W.array, 5.0)
    soft = _agent(
        target_update_interval=1, target_update_method="soft", soft_update_tau=0.1
    )
    before = soft.target_model.l.W.array.copy()
    soft.model.l.W.array[...] = before + 1.0
    soft.act_and_train(as_f32([1, 0]), 0.0)
    np.testing.assert_allclose(soft.target_model.l.W.array, before + 0.1, rtol=1e-6)


def test_prioritized_update_sets_priorities_from_td_errors():
    buf = replay_buffers.PrioritizedReplayBuffer(
        capacity=8, alpha=1.0, eps=0.0, error_max=None
    )
    agent = _agent(buffer=buf)
    buf.append(**dict(_transition([1, 1], 0, 0.0, [0, 0], True).items()))
    agent.update(buf.sample(1))
    # TD error |Q(s, 0) - 0| = 1 before the update.
    assert buf.tree.get([0])[0] == pytest.approx(1.0)


def test_save_load_roundtrip(tmp_path):
    agent = _agent()
    agent.update([[_transition([1, 0], 0, 1.0, [0, 0], True)]])
    agent.save(str(tmp_path / "agent"))
    assert sorted(p.name for p in (tmp_path / "agent").iterdir()) == [
        "model.npz",
        "optimizer.npz",
        "target_model.npz",
    ]
    other = _agent()
    other.load(str(tmp_path / "agent"))
    np.testing.assert_array_equal(other.model.l.W.array, agent.model.l.W.array)
    assert other.optimizer.t == 1
    with pytest.raises(FileNotFoundError, match="agent.save"):
        _agent().load(str(tmp_path / "missing"))


def test_pfrl_style_act_observe_and_eval_mode():
    agent = _agent()
    s = as_f32([1, 0])
    a = agent.act(s)
    agent.observe(as_f32([0, 1]), 1.0, False, False)
    agent.act(as_f32([0, 1]))
    agent.observe(as_f32([1, 1]), 2.0, False, True)  # reset: truncated
    mem = [e[0] for e in agent.replay_buffer.memory]
    assert [m["reward"] for m in mem] == [1.0, 2.0]
    assert [m["is_state_terminal"] for m in mem] == [False, False]
    assert mem[0]["action"] == a and agent.t == 2
    with agent.eval_mode():
        assert agent.training is False
        agent.act(s)
        agent.observe(s, 0.0, True, False)
    assert agent.training and agent.t == 2 and len(agent.replay_buffer) == 2


def test_chainerrl_act_stays_greedy_after_act_and_train():
    q = linear_q()
    always_random = explorers.ConstantEpsilonGreedy(1.0, lambda: 99)
    agent = agents.DQN(
        q,
        sgd(q),
        replay_buffers.ReplayBuffer(),
        GAMMA,
        always_random,
        replay_start_size=10**6,
    )
    assert agent.act_and_train(as_f32([1, 0]), 0.0) == 99
    assert agent.act(as_f32([1, 0])) == 0  # greedy, as in ChainerRL
    assert agent.t == 1


def test_batch_act_and_observe():
    agent = _agent()
    obs = as_f32([[1, 0], [0, 1]])
    np.testing.assert_array_equal(agent.batch_act_and_train(obs), [0, 1])
    agent.batch_observe_and_train(
        as_f32([[0, 1], [1, 0]]), [1.0, 2.0], [True, False], [False, True]
    )
    mem = [e[0] for e in agent.replay_buffer.memory]
    assert sorted((m["reward"], m["is_state_terminal"]) for m in mem) == [
        (1.0, True),
        (2.0, False),
    ]
    assert agent.batch_last_obs == [None, None] and agent.t == 2


def test_bad_arguments():
    q = linear_q()
    with pytest.raises(ValueError, match="target_update_method"):
        agents.DQN(
            q,
            sgd(q),
            replay_buffers.ReplayBuffer(),
            GAMMA,
            explorers.Greedy(),
            target_update_method="polyak",
        )
    with pytest.raises(TypeError, match="StatelessRecurrent"):
        agents.DQN(
            q,
            sgd(q),
            replay_buffers.EpisodicReplayBuffer(),
            GAMMA,
            explorers.Greedy(),
            recurrent=True,
        )
    agent = _agent()
    with pytest.raises(RuntimeError, match="before any act_and_train"):
        agent.stop_episode_and_train(as_f32([1, 0]), 0.0)


def test_max_grad_norm_clips():
    agent = _agent(max_grad_norm=1e-3)
    w0 = agent.model.l.W.array.copy()
    agent.update([[_transition([1, 0], 0, 100.0, [0, 0], True)]])
    step = np.linalg.norm(agent.model.l.W.array - w0)
    assert step == pytest.approx(0.1 * 1e-3, rel=1e-2)  # lr * max norm
    assert kusari.config.train


def test_load_agent_saved_before_its_first_update(tmp_path):
    q = linear_q()
    opt = kusari.optimizers.Adam()
    opt.setup(q)
    agent = agents.DQN(q, opt, replay_buffers.ReplayBuffer(), GAMMA, explorers.Greedy())
    agent.save(str(tmp_path))
    q2 = linear_q()
    opt2 = kusari.optimizers.Adam()
    opt2.setup(q2)
    other = agents.DQN(
        q2, opt2, replay_buffers.ReplayBuffer(), GAMMA, explorers.Greedy()
    )
    other.load(str(tmp_path))  # no Adam moments in the file yet
    other.update([[_transition([1, 0], 0, 1.0, [0, 0], True)]])
    assert other.optimizer.t == 1


def test_obs_normalizer_learns_from_training_acting_and_normalises_batches(tmp_path):
    from kusari_rl.links import EmpiricalNormalization

    norm = EmpiricalNormalization(2)
    agent = _agent(obs_normalizer=norm)
    seen = []
    model_call = agent.model.forward

    def spy(x):
        seen.append(np.array(x))
        return model_call(x)

    agent.model.forward = spy
    target_seen = []
    target_call = agent.target_model.forward

    def target_spy(x):
        target_seen.append(np.array(x))
        return target_call(x)

    agent.target_model.forward = target_spy
    obs = [as_f32([2.0, 4.0]), as_f32([4.0, 8.0]), as_f32([6.0, 12.0])]
    for o in obs:
        agent.act_and_train(o, 0.0)
    # Each observation acted on in training counts once.
    assert int(norm.count) == 3
    np.testing.assert_allclose(norm.mean, [4.0, 8.0], rtol=1e-6)
    # Evaluation acting does not move the statistics but is normalised.
    agent.act(as_f32([4.0, 8.0]))
    assert int(norm.count) == 3
    np.testing.assert_allclose(seen[-1], [[0.0, 0.0]], atol=1e-6)
    # Sampled minibatches: states and next states with today's statistics;
    # the replay buffer keeps the raw observations.
    seen.clear()
    agent.update([[_transition([6.0, 12.0], 0, 1.0, [2.0, 4.0], False)]])
    expected = norm(as_f32([[6.0, 12.0], [2.0, 4.0]]), update=False)
    np.testing.assert_allclose(seen[-1], expected[:1], rtol=1e-5)
    np.testing.assert_allclose(target_seen[-1], expected[1:], rtol=1e-5)
    stored = [t[0]["state"] for t in agent.replay_buffer.sample(2)]
    assert any(np.allclose(s, [2.0, 4.0]) for s in stored)
    agent.save(str(tmp_path))
    assert (tmp_path / "obs_normalizer.npz").exists()


def test_obs_normalizer_is_refused_with_a_recurrent_model():
    from kusari_rl.links import EmpiricalNormalization

    with pytest.raises(ValueError, match="DQN: obs_normalizer is not supported"):
        _agent(
            recurrent=True,
            obs_normalizer=EmpiricalNormalization(2),
            buffer=replay_buffers.EpisodicReplayBuffer(100),
        )
