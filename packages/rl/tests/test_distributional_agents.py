import numpy as np
import pytest

import kusari
from kusari_rl import agents, explorers, links, q_functions, replay_buffers
from kusari_rl.agents.categorical_dqn import apply_categorical_projection
from kusari_rl.agents.iqn import (
    CosineBasisLinear,
    ImplicitQuantileQFunction,
    compute_eltwise_huber_quantile_loss,
    cosine_basis_functions,
)
from kusari_rl.replay_buffer import batch_experiences


def _reference_projection(y, p, z):
    out = np.zeros_like(p, dtype=np.float64)
    dz = z[1] - z[0]
    for b in range(y.shape[0]):
        for j in range(y.shape[1]):
            x = min(max(y[b, j], z[0]), z[-1])
            pos = (x - z[0]) / dz
            lo = int(np.floor(pos))
            if lo == len(z) - 1:
                out[b, lo] += p[b, j]
                continue
            out[b, lo] += p[b, j] * (lo + 1 - pos)
            out[b, lo + 1] += p[b, j] * (pos - lo)
    return out


def test_categorical_projection_matches_reference():
    rng = np.random.default_rng(0)
    z = np.linspace(-2, 2, 9).astype(np.float32)
    y = (rng.normal(size=(5, 9)) * 2).astype(np.float32)
    y[0, :3] = [-2.0, 0.5, 2.0]  # atoms exactly on the support and at the ends
    p = rng.dirichlet(np.ones(9), size=5).astype(np.float32)
    out = apply_categorical_projection(y, p, z)
    np.testing.assert_allclose(out, _reference_projection(y, p, z), atol=1e-6)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=1e-5)


def _distributional_agent(cls, n_atoms=11):
    q = q_functions.DistributionalFCStateQFunctionWithDiscreteAction(
        2, 2, n_atoms, -1.0, 1.0, 16, 1
    )
    opt = kusari.optimizers.Adam(1e-2)
    opt.setup(q)
    return cls(
        q,
        opt,
        replay_buffers.ReplayBuffer(),
        0.5,
        explorers.Greedy(),
        replay_start_size=10**6,
        target_update_interval=10**6,
    )


def _tr(r, terminal):
    return [
        {
            "state": np.array([1, 0], np.float32),
            "action": 1,
            "reward": r,
            "next_state": np.array([0, 1], np.float32),
            "next_action": None,
            "is_state_terminal": terminal,
        }
    ]


@pytest.mark.parametrize("cls", [agents.CategoricalDQN, agents.CategoricalDoubleDQN])
def test_categorical_target_and_learning(cls):
    agent = _distributional_agent(cls)
    batch = batch_experiences([_tr(0.3, True)], np, None, 0.5)
    _, t = agent._compute_y_and_t(batch)
    # Terminal: all mass at r = 0.3, split between atoms 0.2 and 0.4.
    expected = np.zeros(11)
    expected[6], expected[7] = 0.5, 0.5
    np.testing.assert_allclose(t[0], expected, atol=1e-5)
    for _ in range(150):
        agent.update([_tr(0.3, True)])
    q = agent.model(np.array([[1, 0]], np.float32)).q_values.array[0, 1]
    assert q == pytest.approx(0.3, abs=0.05)


def test_iqn_quantile_loss_and_learning():
    # Quantile loss weights: tau when the target is above, 1 - tau below.
    y = np.zeros((1, 1, 2), np.float32)
    t = np.array([[[0.5, -0.5]]], np.float32)
    taus = np.full((1, 1, 2), 0.8, np.float32)
    loss = compute_eltwise_huber_quantile_loss(y, t, taus).array
    np.testing.assert_allclose(loss, [[[0.8 * 0.125, 0.2 * 0.125]]], rtol=1e-5)
    emb = cosine_basis_functions(np.array([[0.5]], np.float32), 3)
    np.testing.assert_allclose(
        emb[0, 0], np.cos(np.pi * np.arange(1, 4) * 0.5), atol=1e-6
    )

    q = ImplicitQuantileQFunction(
        psi=links.Sequence(kusari.links.Linear(2, 16), kusari.functions.relu),
        phi=links.Sequence(CosineBasisLinear(16, 16), kusari.functions.relu),
        f=kusari.links.Linear(16, 2),
    )
    opt = kusari.optimizers.Adam(1e-2)
    opt.setup(q)
    agent = agents.IQN(
        q,
        opt,
        replay_buffers.ReplayBuffer(),
        0.5,
        explorers.Greedy(),
        replay_start_size=10**6,
        quantile_thresholds_N=16,
        quantile_thresholds_N_prime=16,
        quantile_thresholds_K=8,
    )
    for _ in range(200):
        agent.update([_tr(0.3, True)])
    with kusari.no_backprop_mode():
        av = agent._evaluate_model([np.array([1, 0], np.float32)])
    assert av.q_values.array[0, 1] == pytest.approx(0.3, abs=0.08)
    assert agent.act(np.array([1, 0], np.float32)) in (0, 1)


def test_distributional_dueling_dqn_with_noisy_nets():
    q = q_functions.DistributionalDuelingDQN(3, 5, -1.0, 1.0)
    links.to_factorized_noisy(q, sigma_scale=0.5)
    assert isinstance(q.main_stream, links.FactorizedNoisyLinear)
    av = q(np.zeros((2, 4, 84, 84), np.float32))
    assert av.q_dist.shape == (2, 3, 5)
    np.testing.assert_allclose(av.q_dist.array.sum(axis=2), 1.0, rtol=1e-5)


def _on_device(device):
    return None if device == "@numpy" else int(device.split(":")[1])


@pytest.mark.parametrize("cls", [agents.DQN, agents.CategoricalDoubleDQN])
def test_agents_update_and_act_on_device(device, cls):
    if cls is agents.DQN:
        q = q_functions.FCStateQFunctionWithDiscreteAction(2, 2, 8, 1)
    else:
        q = q_functions.DistributionalFCStateQFunctionWithDiscreteAction(
            2, 2, 11, -1.0, 1.0, 8, 1
        )
    opt = kusari.optimizers.Adam(1e-2)
    opt.setup(q)
    buf = replay_buffers.PrioritizedReplayBuffer(capacity=16, num_steps=2)
    agent = cls(
        q,
        opt,
        buf,
        0.5,
        explorers.Greedy(),
        gpu=_on_device(device),
        replay_start_size=4,
        minibatch_size=4,
        target_update_interval=3,
    )
    obs = np.array([1, 0], np.float32)
    for i in range(8):
        agent.act_and_train(obs, float(i % 2))
    agent.stop_episode_and_train(obs, 1.0, done=True)
    assert agent.optimizer.t > 0
    assert agent.act(obs) in (0, 1)
    assert np.all(np.isfinite(buf.tree.get(np.arange(len(buf)))))
