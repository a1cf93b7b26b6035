"""FCDuelingQFunction: the dueling combination on a fully connected trunk."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari import gradient_check
from kusari_rl import agents, explorers, q_functions, replay_buffers
from kusari_rl.q_functions.dueling_dqn import dueling_combine


def _by_hand(q, x):
    h = x
    for layer in q.hidden_layers:
        h = np.maximum(h @ layer.W.array.T + layer.b.array, 0.0)
    adv = h @ q.a_stream.W.array.T + q.a_stream.b.array
    val = h @ q.v_stream.W.array.T + q.v_stream.b.array
    return val + adv - adv.mean(axis=1, keepdims=True), val, adv


def test_q_is_value_plus_centred_advantage():
    rng = np.random.default_rng(0)
    q = q_functions.FCDuelingQFunction(4, 3, 8, 2)
    for p in q.params():  # non-zero biases too
        p.array[...] = rng.normal(size=p.shape).astype(np.float32)
    x = rng.normal(size=(5, 4)).astype(np.float32)
    av = q(x)
    expected, val, adv = _by_hand(q, x)
    np.testing.assert_allclose(av.q_values.array, expected, rtol=1e-5, atol=1e-5)
    # The mean over actions is the value head's output.
    np.testing.assert_allclose(
        av.q_values.array.mean(axis=1), val[:, 0], rtol=1e-5, atol=1e-5
    )
    np.testing.assert_array_equal(av.greedy_actions.array, adv.argmax(axis=1))


def test_gradients_reach_both_heads_and_the_trunk():
    q = q_functions.FCDuelingQFunction(4, 2, 8, 1)
    x = np.random.default_rng(1).normal(size=(6, 4)).astype(np.float32)
    loss = F.sum(q(x).evaluate_actions(np.array([0, 1, 0, 0, 1, 0])))
    q.cleargrads()
    loss.backward()
    for name, p in q.namedparams():
        assert p.grad is not None and np.abs(p.grad).sum() > 0, name
    # The value head gets one unit of gradient per sample (d Q / d V = 1).
    np.testing.assert_allclose(q.v_stream.b.grad, [6.0], rtol=1e-6)
    # Advantage bias of action a: (times a was taken) - 6 / 2, as the mean
    # over actions is subtracted.
    np.testing.assert_allclose(q.a_stream.b.grad, [1.0, -1.0], atol=1e-5)


def test_inferred_input_size():
    q = q_functions.FCDuelingQFunction(None, 2, 8, 2)
    assert q(np.zeros((2, 7), np.float32)).q_values.shape == (2, 2)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_hidden_layers": 0}, "n_hidden_layers must be >= 1"),
        ({"n_actions": 0}, "n_actions must be >= 1"),
    ],
)
def test_bad_arguments(kwargs, match):
    args = {"ndim_obs": 4, "n_actions": 2, "n_hidden_channels": 8, "n_hidden_layers": 2}
    args.update(kwargs)
    with pytest.raises(ValueError, match="FCDuelingQFunction: " + match):
        q_functions.FCDuelingQFunction(**args)


def test_dqn_trains_and_saves_a_dueling_q_function(tmp_path):
    q = q_functions.FCDuelingQFunction(2, 2, 8, 2)
    opt = kusari.optimizers.Adam(1e-2)
    opt.setup(q)
    agent = agents.DoubleDQN(
        q,
        opt,
        replay_buffers.ReplayBuffer(100),
        0.9,
        explorers.ConstantEpsilonGreedy(0.5, lambda: 0),
        replay_start_size=8,
        minibatch_size=8,
    )
    obs = np.zeros(2, np.float32)
    before = [p.array.copy() for p in q.params()]
    for t in range(20):
        agent.act_and_train(obs + t, 1.0)
    agent.stop_episode_and_train(obs, 0.0, done=True)
    assert agent.optimizer.t > 0
    assert any(not np.array_equal(b, p.array) for b, p in zip(before, q.params()))
    agent.save(str(tmp_path / "agent"))
    q2 = q_functions.FCDuelingQFunction(2, 2, 8, 2)
    opt2 = kusari.optimizers.Adam(1e-2)
    opt2.setup(q2)
    agent2 = agents.DoubleDQN(
        q2,
        opt2,
        replay_buffers.ReplayBuffer(100),
        0.9,
        explorers.Greedy(),
    )
    agent2.load(str(tmp_path / "agent"))
    x = np.ones((1, 2), np.float32)
    np.testing.assert_array_equal(q2(x).q_values.array, q(x).q_values.array)


def _composed(adv, value):
    # The six-node form: what dueling_combine fuses.
    mean = F.mean(adv, axis=1, keepdims=True)
    ya = adv - F.broadcast_to(mean, adv.shape)
    return ya + F.broadcast_to(value, ya.shape)


@pytest.mark.parametrize("n_actions", [2, 3, 4])
def test_fused_combination_gives_the_composed_numbers(n_actions):
    rng = np.random.default_rng(n_actions)
    a = rng.normal(size=(7, n_actions)).astype(np.float32) * 100
    v = rng.normal(size=(7, 1)).astype(np.float32) * 100
    g = rng.normal(size=(7, n_actions)).astype(np.float32)
    results = []
    for combine in (dueling_combine, _composed):
        av, vv = kusari.Variable(a.copy()), kusari.Variable(v.copy())
        q = combine(av, vv)
        q.grad = g.copy()
        q.backward()
        results.append((q.array, av.grad, vv.grad))
    (q1, ga1, gv1), (q2, ga2, gv2) = results
    if n_actions in (2, 4):
        # 1 / n is exact: the same operations give the same bits (the
        # benchmark's runs are reproducible across the two forms).
        for x, y in ((q1, q2), (ga1, ga2), (gv1, gv2)):
            np.testing.assert_array_equal(x, y)
    else:
        for x, y in ((q1, q2), (ga1, ga2), (gv1, gv2)):
            np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-4)


def test_fused_combination_first_and_second_order_gradients():
    rng = np.random.default_rng(5)
    a = rng.normal(size=(4, 3))
    v = rng.normal(size=(4, 1))
    gy = rng.normal(size=(4, 3))
    gradient_check.check_backward(dueling_combine, (a, v), gy, dtype=np.float64)
    gradient_check.check_double_backward(
        dueling_combine,
        (a, v),
        gy,
        (rng.normal(size=(4, 3)), rng.normal(size=(4, 1))),
        dtype=np.float64,
    )


def test_fused_combination_rejects_bad_shapes():
    with pytest.raises(ValueError, match=r"dueling_combine: expected .*\(B, 1\)"):
        dueling_combine(np.zeros((3, 2), np.float32), np.zeros((3, 2), np.float32))


def test_q_values_array_is_the_forward_pass_without_a_graph():
    rng = np.random.default_rng(2)
    q = q_functions.FCDuelingQFunction(4, 2, 32, 2)
    for p in q.params():
        p.array[...] = rng.normal(size=p.shape).astype(np.float32)
    for batch in (1, 64):
        x = rng.normal(size=(batch, 4)).astype(np.float32)
        fast = q.q_values_array(x)
        assert isinstance(fast, np.ndarray) and fast.dtype == np.float32
        np.testing.assert_array_equal(fast, q(x).q_values.array)


def test_q_values_array_falls_back_to_forward():
    x = np.ones((2, 4), np.float32)
    # Another nonlinearity: the graph's forward gives the values.
    q = q_functions.FCDuelingQFunction(4, 2, 8, 2, nonlinearity=F.tanh)
    np.testing.assert_array_equal(q.q_values_array(x), q(x).q_values.array)
    # Lazily initialised first layer: forward initialises it.
    lazy = q_functions.FCDuelingQFunction(None, 2, 8, 2)
    assert lazy.hidden_layers[0].W.array is None
    assert lazy.q_values_array(x).shape == (2, 2)
    np.testing.assert_array_equal(lazy.q_values_array(x), lazy(x).q_values.array)
