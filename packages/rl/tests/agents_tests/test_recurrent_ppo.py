"""Recurrent PPO (``recurrent=True``): hidden states, sequence updates, learning."""

from __future__ import annotations

import numpy as np
import pytest
from test_recurrent_dqn import CueRecall

import kusari
import kusari.functions as F
import kusari.links as L
from kusari_rl.agents import PPO
from kusari_rl.agents._recurrent import rollout_sequences, sequence_minibatches
from kusari_rl.links import Branched, StatelessRecurrentSequential
from kusari_rl.policies import SoftmaxPolicy


def _model(hidden=16):
    return StatelessRecurrentSequential(
        L.Linear(3, hidden),
        F.tanh,
        L.NStepLSTM(1, hidden, hidden, 0.0),
        Branched(SoftmaxPolicy(L.Linear(hidden, 2)), L.Linear(hidden, 1)),
    )


def _agent(lr=3e-3, **kwargs):
    model = _model()
    opt = kusari.optimizers.Adam(lr)
    opt.setup(model)
    kwargs.setdefault("update_interval", 64)
    kwargs.setdefault("minibatch_size", 16)
    kwargs.setdefault("epochs", 4)
    return PPO(model, opt, recurrent=True, gamma=0.9, **kwargs)


def _run(agent, n_envs, steps, seed=0):
    envs = [CueRecall(delay=3, seed=seed + i) for i in range(n_envs)]
    obs = [env.reset() for env in envs]
    for _ in range(steps // n_envs):
        actions = agent.batch_act_and_train(obs)
        out = [env.step(int(a)) for env, a in zip(envs, actions)]
        next_obs = [o for o, _, _ in out]
        rewards = [r for _, r, _ in out]
        dones = [d for _, _, d in out]
        agent.batch_observe_and_train(next_obs, rewards, dones, [False] * n_envs)
        obs = [env.reset() if d else o for env, o, d in zip(envs, next_obs, dones)]


def _score(agent, episodes=40, seed=100):
    env = CueRecall(delay=3, seed=seed)
    total = 0.0
    with agent.eval_mode():
        for _ in range(episodes):
            obs, done = env.reset(), False
            while not done:
                obs, r, done = env.step(int(agent.act(obs)))
            agent.observe(obs, r, done, False)
            total += r
    return total / episodes


def test_sequences_and_minibatches_cover_the_rollout_once():
    ends = np.zeros((7, 2), bool)
    ends[2, 0] = ends[5, 1] = True
    seqs = rollout_sequences(ends, max_len=3)
    assert seqs == [(0, 0, 3), (0, 3, 6), (0, 6, 7), (1, 0, 3), (1, 3, 6), (1, 6, 7)]
    assert rollout_sequences(ends) == [(0, 0, 3), (0, 3, 7), (1, 0, 6), (1, 6, 7)]
    batches = sequence_minibatches(seqs, 5, np.random.RandomState(0))
    assert [sum(t1 - t0 for _, t0, t1 in b) for b in batches] == [5, 5, 4]
    steps = sorted((e, t) for b in batches for e, t0, t1 in b for t in range(t0, t1))
    assert steps == [(e, t) for e in range(2) for t in range(7)]


def test_replayed_sequences_reproduce_the_acting_outputs():
    # With a zero learning rate the model never changes, so every minibatch
    # replayed from the stored hidden states must give exactly the log
    # probabilities and values computed while acting: this checks the
    # sequence cutting (episode ends, max length, minibatch splits), the row
    # indexing and the stored initial states all at once.
    agent = _agent(
        lr=0.0,
        update_interval=60,
        minibatch_size=7,
        epochs=2,
        max_recurrent_sequence_len=3,
    )
    seen = []
    orig = agent._lossfun

    def spy(entropy, vs_pred, log_probs, **kw):
        seen.append(
            (log_probs.array, kw["log_probs_old"], vs_pred.array, kw["vs_pred_old"])
        )
        return orig(entropy, vs_pred, log_probs, **kw)

    agent._lossfun = spy
    _run(agent, n_envs=3, steps=60)
    assert agent.n_updates == 1
    assert sum(len(lp) for lp, _, _, _ in seen) == 2 * 60
    for lp, lp_old, v, v_old in seen:
        np.testing.assert_allclose(lp, lp_old, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(v, v_old, rtol=1e-5, atol=1e-5)


def test_states_carry_per_env_and_reset_at_episode_ends():
    agent = _agent(update_interval=10**6)
    obs = [np.array([1, 0, 0], np.float32), np.array([0, 1, 0], np.float32)]
    agent.batch_act_and_train(obs)
    h1 = agent.train_recurrent_states[0][0].copy()
    assert h1.shape == (1, 2, 16)
    agent.batch_observe_and_train(obs, [0.0, 0.0], [False, True], [False, False])
    h = agent.train_recurrent_states[0][0]
    np.testing.assert_array_equal(h[:, 0], h1[:, 0])
    assert np.all(h[:, 1] == 0)
    agent.batch_act_and_train(obs)
    assert not np.allclose(agent.train_recurrent_states[0][0][:, 0], h1[:, 0])
    assert agent._rollout.recurrent_states[0] is None  # initial state stored
    with agent.eval_mode():
        agent.batch_act(obs)
        agent.batch_observe(obs, [0.0, 0.0], [False, False], [False, True])
        t = agent.test_recurrent_states[0][0]
        assert np.all(t[:, 1] == 0) and np.all(t[:, 0] != 0)
        agent.act(obs[0])
        agent.stop_episode()
        assert agent.test_recurrent_states is None


def test_truncation_bootstraps_from_the_carried_state():
    agent = _agent(update_interval=10**6)
    obs = [np.array([1, 0, 0], np.float32)]
    agent.batch_act_and_train(obs)
    rs = agent.train_recurrent_states
    nxt = [np.array([0, 0, 1], np.float32)]
    agent.batch_observe_and_train(nxt, [0.0], [False], [True])
    (_, v), _ = agent.model(nxt[0][None], rs)
    assert agent._rollout.end_values[0][0] == pytest.approx(
        float(v.array[0, 0]), rel=1e-5
    )


def test_recurrent_needs_a_recurrent_model():
    from _on_policy_helpers import make_model

    model = make_model()
    opt = kusari.optimizers.Adam()
    opt.setup(model)
    with pytest.raises(TypeError, match="PPO: recurrent=True needs a model"):
        PPO(model, opt, recurrent=True)
    with pytest.raises(ValueError, match="max_recurrent_sequence_len"):
        PPO(_model(), opt, recurrent=True, max_recurrent_sequence_len=0)


@pytest.mark.slow
def test_recurrent_ppo_solves_cue_recall():
    np.random.seed(0)
    agent = _agent()
    _run(agent, n_envs=4, steps=6000)
    assert _score(agent) >= 0.9
