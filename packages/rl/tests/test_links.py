import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari_rl import links, q_functions


def test_mlp_and_sequence_shapes_and_param_names():
    mlp = links.MLP(4, 2, (8, 6))
    assert mlp(np.zeros((3, 4), np.float32)).shape == (3, 2)
    names = sorted(n for n, _ in mlp.namedparams())
    assert "/hidden_layers/1/W" in names and "/output/b" in names
    seq = links.Sequence(L.Linear(3, 4), F.relu, L.Linear(4, 1))
    assert len(seq) == 3 and seq[2] is seq.layers[2]
    assert sorted(n for n, _ in seq.namedparams()) == ["/0/W", "/0/b", "/2/W", "/2/b"]
    with pytest.raises(TypeError, match="layer 0"):
        links.Sequence(3)


def test_mlpbn_runs_in_train_and_test_mode():
    net = links.MLPBN(3, 2, (5,))
    x = np.random.rand(4, 3).astype(np.float32)
    assert net(x).shape == (4, 2)
    with kusari.using_config("train", False):
        assert net(x).shape == (4, 2)


def test_dqn_heads_output_sizes():
    x = np.zeros((1, 4, 84, 84), np.float32)
    assert links.NatureDQNHead()(x).shape == (1, 512)
    assert links.NIPSDQNHead()(x).shape == (1, 256)
    assert q_functions.DuelingDQN(5)(x).q_values.shape == (1, 5)


def test_factorized_noisy_linear_statistics():
    noisy = links.FactorizedNoisyLinear(L.Linear(4, 3), sigma_scale=0.5)
    np.testing.assert_allclose(noisy.sigma.W.array, 0.5 / 2)  # sigma0 / sqrt(in)
    assert np.abs(noisy.mu.W.array).max() <= 0.5 + 1e-6  # U(+-1/sqrt(in))
    x = np.ones((1, 4), np.float32)
    outs = np.stack([noisy(x).array for _ in range(2000)])
    mean = (noisy.mu.W.array @ x[0]) + noisy.mu.b.array
    np.testing.assert_allclose(outs.mean(axis=0)[0], mean, atol=0.06)
    assert outs.std(axis=0).min() > 0.1
    y = F.sum(noisy(x))
    y.backward()
    assert noisy.sigma.W.grad is not None and np.any(noisy.sigma.W.grad != 0)


def test_to_factorized_noisy_replaces_nested_linears_lazily():
    net = links.Sequence(links.MLP(None, 2, (5,)), F.relu)
    hidden = net[0].hidden_layers
    links.to_factorized_noisy(net)
    inner = net[0]
    assert inner.hidden_layers is hidden  # converted in place, not rebuilt
    assert isinstance(inner.output, links.FactorizedNoisyLinear)
    assert isinstance(inner.hidden_layers[0], links.FactorizedNoisyLinear)
    assert net(np.zeros((2, 7), np.float32)).shape == (2, 2)
    with pytest.raises(TypeError, match="root link"):
        links.to_factorized_noisy(L.Linear(2, 2))
    layers = kusari.ChainList(L.Linear(2, 3), L.Linear(3, 1))
    links.to_factorized_noisy(layers)
    assert all(isinstance(l, links.FactorizedNoisyLinear) for l in layers)


def test_empirical_normalization():
    norm = links.EmpiricalNormalization(3, until=6)
    rng = np.random.default_rng(0)
    data = rng.normal(5.0, 2.0, size=(6, 3)).astype(np.float32)
    norm(data[:2])
    norm(data[2:])
    np.testing.assert_allclose(norm.mean, data.mean(0), rtol=1e-5)
    np.testing.assert_allclose(norm.std, data.std(0), rtol=1e-4)
    norm(data * 100)  # past `until`: statistics frozen
    np.testing.assert_allclose(norm.mean, data.mean(0), rtol=1e-5)
    y = norm(data, update=False)
    np.testing.assert_allclose(norm.inverse(y), data, rtol=1e-4)
