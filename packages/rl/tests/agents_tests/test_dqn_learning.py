"""DQN's minibatch update against a NumPy re-derivation of every step.

The update chains the target (terminal vs truncated, n-step discount), the
Huber loss, backpropagation through an MLP, global gradient-norm clipping and
an Adam step; a silent slip in any link (a wrong sign, a missing ``1 - done``,
a clip applied before instead of after backward, Adam's bias correction)
changes the parameters this test predicts.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import kusari
from kusari_rl import agents, explorers, q_functions, replay_buffers
from kusari_rl.misc import set_random_seed


def _mlp_params(q):
    layers = [*q.model.hidden_layers, q.model.output]
    return [
        (layer.W.array.astype(np.float64), layer.b.array.astype(np.float64))
        for layer in layers
    ]


def _forward(params, x):
    hs = [x]
    h = x
    for i, (W, b) in enumerate(params):
        h = h @ W.T + b
        if i < len(params) - 1:
            h = np.maximum(h, 0.0)
        hs.append(h)
    return hs


def _reference_update(params, target_params, batch, gamma, max_norm, lr, eps):
    s, a, r, s2, done, discount = batch
    q_next = _forward(target_params, s2)[-1].max(axis=1)
    target = r + discount * (1.0 - done) * q_next
    hs = _forward(params, s)
    q = hs[-1]
    n = len(s)
    delta = q[np.arange(n), a] - target
    # Huber (delta 1), averaged over the minibatch.
    dq = np.zeros_like(q)
    dq[np.arange(n), a] = np.clip(delta, -1.0, 1.0) / n
    loss = np.where(np.abs(delta) <= 1, 0.5 * delta**2, np.abs(delta) - 0.5).mean()
    grads = []
    g = dq
    for i in reversed(range(len(params))):
        W, _ = params[i]
        grads.append((g.T @ hs[i], g.sum(axis=0)))
        g = g @ W
        if i > 0:
            g = g * (hs[i] > 0)
    grads.reverse()
    norm = np.sqrt(sum((gw**2).sum() + (gb**2).sum() for gw, gb in grads))
    scale = max_norm / (norm + 1e-6) if norm > max_norm else 1.0
    # First Adam step (Chainer's form): alpha_t = lr sqrt(1 - b2) / (1 - b1).
    beta1, beta2 = 0.9, 0.999
    alpha_t = lr * np.sqrt(1 - beta2) / (1 - beta1)
    new = []
    for (W, b), (gw, gb) in zip(params, grads):
        out = []
        for p, gp in ((W, gw), (b, gb)):
            gp = gp * scale
            m, v = (1 - beta1) * gp, (1 - beta2) * gp**2
            out.append(p - alpha_t * m / (np.sqrt(v) + eps))
        new.append(tuple(out))
    return loss, new, norm


@pytest.mark.parametrize("n_step", [1, 3])
@pytest.mark.parametrize("max_norm", [1e9, 0.5])
def test_update_matches_a_numpy_rederivation(n_step, max_norm):
    rng = np.random.default_rng(3)
    q = q_functions.FCStateQFunctionWithDiscreteAction(3, 2, 8, 2)
    opt = kusari.optimizers.Adam(alpha=1e-2, eps=1e-3)
    opt.setup(q)
    gamma = 0.9
    rb = replay_buffers.ReplayBuffer(100, num_steps=n_step)
    agent = agents.DQN(
        q,
        opt,
        rb,
        gamma,
        explorers.Greedy(),
        replay_start_size=4,
        minibatch_size=4,
        target_update_interval=10**6,
        max_grad_norm=max_norm,
    )
    # The target network lags the model, as between two syncs.
    for p in agent.target_model.params():
        p.array[...] += rng.normal(size=p.shape).astype(np.float32) * 0.3
    target_params = _mlp_params(agent.target_model)
    params = _mlp_params(q)
    # Experiences of 1..n_step transitions: terminal inside, truncated and
    # plain ones (truncation leaves is_state_terminal False: bootstrap).
    experiences = []
    for k, ends in enumerate([False, True, False, True]):
        length = 1 + k % n_step
        exp = []
        for j in range(length):
            exp.append(
                {
                    "state": rng.normal(size=3).astype(np.float32),
                    "action": int(rng.integers(2)),
                    "reward": float(rng.normal()),
                    "next_state": rng.normal(size=3).astype(np.float32),
                    "next_action": None,
                    "is_state_terminal": ends and j == length - 1,
                }
            )
        experiences.append(exp)
    s = np.stack([e[0]["state"] for e in experiences]).astype(np.float64)
    a = np.array([e[0]["action"] for e in experiences])
    r = np.array(
        [sum(gamma**i * t["reward"] for i, t in enumerate(e)) for e in experiences]
    )
    s2 = np.stack([e[-1]["next_state"] for e in experiences]).astype(np.float64)
    done = np.array([float(e[-1]["is_state_terminal"]) for e in experiences])
    discount = np.array([gamma ** len(e) for e in experiences])
    loss, expected, norm = _reference_update(
        params,
        target_params,
        (s, a, r, s2, done, discount),
        gamma,
        max_norm,
        1e-2,
        1e-3,
    )
    if max_norm < 1e9:
        assert norm > max_norm  # the clipping branch really runs
    agent.average_loss_decay = 0.0
    agent.update(experiences)
    assert agent.average_loss == pytest.approx(loss, rel=1e-5)
    for (W, b), (eW, eb) in zip(_mlp_params(q), expected):
        np.testing.assert_allclose(W, eW, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(b, eb, rtol=1e-5, atol=1e-6)
    # The target network is not trained by the update.
    for (W, b), (tW, tb) in zip(_mlp_params(agent.target_model), target_params):
        np.testing.assert_array_equal(W, tW)
        np.testing.assert_array_equal(b, tb)


def _dueling_agent(cls, n_step=1, normalize=False):
    q = q_functions.FCDuelingQFunction(3, 2, 16, 2)
    opt = kusari.optimizers.Adam(alpha=1e-2)
    opt.setup(q)
    normalizer = None
    if normalize:
        from kusari_rl.links import EmpiricalNormalization

        normalizer = EmpiricalNormalization(3, clip_threshold=2.0)
    return cls(
        q,
        opt,
        replay_buffers.ReplayBuffer(500, num_steps=n_step),
        0.9,
        explorers.ConstantEpsilonGreedy(0.5, lambda: 0),
        replay_start_size=32,
        minibatch_size=16,
        update_interval=8,
        target_update_interval=16,
        obs_normalizer=normalizer,
    )


def _drive(agent, steps, seed=0):
    rng = np.random.default_rng(seed)
    np.random.seed(seed)
    obs = rng.normal(size=3).astype(np.float32)
    for t in range(steps):
        agent.act_and_train(obs, float(rng.normal()))
        obs = rng.normal(size=3).astype(np.float32)
        if t % 23 == 22:
            agent.stop_episode_and_train(obs, 1.0, done=t % 46 == 45)
    return obs


@pytest.mark.parametrize("cls", [agents.DQN, agents.DoubleDQN])
def test_graph_free_q_values_change_no_number(cls, monkeypatch):
    # Acting and targets through q_values_array against the same agent
    # with it switched off: the same actions, statistics and parameters.
    runs = []
    for fast in (True, False):
        if not fast:
            monkeypatch.setattr(q_functions.FCDuelingQFunction, "q_values_array", None)
        set_random_seed(3)
        agent = _dueling_agent(cls, n_step=3, normalize=True)
        obs = _drive(agent, 200)
        assert agent.optimizer.t > 0
        runs.append(
            (
                [p.array.copy() for p in agent.model.params()],
                agent.average_q,
                agent.act(obs),
            )
        )
    (p1, q1, a1), (p2, q2, a2) = runs
    for x, y in zip(p1, p2):
        np.testing.assert_array_equal(x, y)
    assert q1 == q2 and a1 == a2


def test_nstep_update_batches_from_the_columns(monkeypatch):
    from kusari_rl.replay_buffers._columns import ColumnStore

    served = []
    original = ColumnStore.nstep_batch

    def spy(self, experiences, gamma):
        batch = original(self, experiences, gamma)
        served.append(batch is not None)
        return batch

    monkeypatch.setattr(ColumnStore, "nstep_batch", spy)
    pair = []
    for _ in range(2):
        set_random_seed(0)
        agent = _dueling_agent(agents.DoubleDQN, n_step=3)
        _drive(agent, 100)
        pair.append(agent)
    assert served and all(served)
    # The same sample batched transition by transition updates the same.
    agent, twin = pair
    random.seed(5)
    sample = agent.replay_buffer.sample(16)
    random.seed(5)
    twin_sample = twin.replay_buffer.sample(16)
    agent.update(sample)
    twin.update(list(twin_sample))  # a plain list: no columns
    for p, q in zip(agent.model.params(), twin.model.params()):
        np.testing.assert_array_equal(p.array, q.array)
