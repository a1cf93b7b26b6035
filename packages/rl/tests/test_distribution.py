"""Distributions: densities, entropies and KLs against NumPy; gradients flow."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
from kusari_rl import distribution as D


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _gauss_log_prob(x, mean, var):
    return (-0.5 * np.log(2 * np.pi * var) - (x - mean) ** 2 / (2 * var)).sum(axis=1)


@pytest.fixture
def rng() -> np.random.Generator:
    np.random.seed(0)
    return np.random.default_rng(0)


# ---- softmax ---------------------------------------------------------------


@pytest.mark.parametrize("beta", [1.0, 0.5])
def test_softmax_matches_numpy(rng, beta):
    logits = rng.normal(size=(5, 4)).astype(np.float32)
    other = rng.normal(size=(5, 4)).astype(np.float32)
    d = D.SoftmaxDistribution(logits, beta=beta)
    q = D.SoftmaxDistribution(other, beta=beta)
    p = _softmax(beta * logits.astype(np.float64))
    pq = _softmax(beta * other.astype(np.float64))
    a = np.array([0, 3, 1, 2, 0])
    np.testing.assert_allclose(d.all_prob.array, p, rtol=1e-5)
    np.testing.assert_allclose(
        d.log_prob(a).array, np.log(p[np.arange(5), a]), rtol=1e-5
    )
    np.testing.assert_allclose(d.prob(a).array, p[np.arange(5), a], rtol=1e-5)
    np.testing.assert_allclose(d.entropy.array, -(p * np.log(p)).sum(1), rtol=1e-5)
    np.testing.assert_allclose(
        d.kl(q).array, (p * (np.log(p) - np.log(pq))).sum(1), rtol=1e-4, atol=1e-6
    )
    np.testing.assert_array_equal(d.most_probable.array, p.argmax(1))


def test_softmax_min_prob_floors_every_action(rng):
    logits = np.array([[10.0, -10.0, 0.0]], np.float32)
    d = D.SoftmaxDistribution(logits, min_prob=0.1)
    probs = d.all_prob.array
    assert probs.min() >= 0.1 - 1e-6
    np.testing.assert_allclose(probs.sum(), 1.0, rtol=1e-6)
    np.testing.assert_allclose(d.all_log_prob.array, np.log(probs), rtol=1e-5)
    with pytest.raises(ValueError, match="min_prob"):
        D.SoftmaxDistribution(logits, min_prob=0.5)


def test_softmax_sample_frequencies(rng):
    logits = np.log(np.array([[0.1, 0.6, 0.3]] * 20000, np.float32))
    samples = D.SoftmaxDistribution(logits).sample().array
    assert samples.dtype == np.int32
    freq = np.bincount(samples, minlength=3) / len(samples)
    np.testing.assert_allclose(freq, [0.1, 0.6, 0.3], atol=0.015)


def test_softmax_log_prob_gradient_is_onehot_minus_prob(rng):
    logits = kusari.Variable(rng.normal(size=(3, 4)).astype(np.float32))
    d = D.SoftmaxDistribution(logits)
    a = np.array([1, 0, 3])
    F_sum = kusari.functions.sum(d.log_prob(a))
    F_sum.backward()
    expected = np.eye(4)[a] - _softmax(logits.array.astype(np.float64))
    np.testing.assert_allclose(logits.grad, expected, rtol=1e-4, atol=1e-6)


def test_entropy_read_in_no_backprop_mode_stays_differentiable(rng):
    logits = kusari.Variable(rng.normal(size=(2, 3)).astype(np.float32))
    d = D.SoftmaxDistribution(logits)
    with kusari.no_backprop_mode():
        _ = d.entropy
    kusari.functions.sum(d.entropy).backward()
    assert logits.grad is not None and np.abs(logits.grad).sum() > 0


def test_copy_detaches_from_the_graph(rng):
    logits = kusari.Variable(rng.normal(size=(2, 3)).astype(np.float32))
    d = D.SoftmaxDistribution(logits)
    c = d.copy()
    np.testing.assert_allclose(c.all_prob.array, d.all_prob.array)
    assert c.logits is not logits
    kusari.functions.sum(c.entropy).backward()
    assert logits.grad is None


def test_mellowmax_distribution_has_zero_mean_advantage(rng):
    q = rng.normal(size=(4, 3)).astype(np.float32)
    omega = 2.0
    d = D.MellowmaxDistribution(q, omega=omega)
    p = d.all_prob.array.astype(np.float64)
    np.testing.assert_allclose(p.sum(1), 1.0, rtol=1e-5)
    mm = np.log(np.mean(np.exp(omega * q), axis=1)) / omega
    np.testing.assert_allclose((p * (q - mm[:, None])).sum(1), 0.0, atol=1e-4)


# ---- Gaussian ----------------------------------------------------------------


def test_gaussian_matches_closed_forms(rng):
    mean = rng.normal(size=(4, 3))
    var = np.exp(rng.normal(size=(4, 3)))
    mean2 = rng.normal(size=(4, 3))
    var2 = np.exp(rng.normal(size=(4, 3)))
    x = rng.normal(size=(4, 3))
    d = D.GaussianDistribution(mean.astype(np.float32), var.astype(np.float32))
    q = D.GaussianDistribution(mean2.astype(np.float32), var2.astype(np.float32))
    np.testing.assert_allclose(
        d.log_prob(x.astype(np.float32)).array, _gauss_log_prob(x, mean, var), rtol=1e-5
    )
    np.testing.assert_allclose(
        d.prob(x.astype(np.float32)).array,
        np.exp(_gauss_log_prob(x, mean, var)),
        rtol=1e-4,
    )
    np.testing.assert_allclose(
        d.entropy.array, (0.5 * np.log(2 * np.pi * np.e * var)).sum(1), rtol=1e-5
    )
    kl = 0.5 * (np.log(var2 / var) + (var + (mean - mean2) ** 2) / var2 - 1).sum(1)
    np.testing.assert_allclose(d.kl(q).array, kl, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(d.most_probable.array, mean, rtol=1e-6)


def test_gaussian_samples_have_the_right_moments(rng):
    mean = np.array([[1.0, -2.0]] * 40000, np.float32)
    var = np.array([[0.25, 4.0]] * 40000, np.float32)
    d = D.GaussianDistribution(mean, var)
    x = d.sample().array
    np.testing.assert_allclose(x.mean(0), [1.0, -2.0], atol=0.03)
    np.testing.assert_allclose(x.var(0), [0.25, 4.0], rtol=0.03)
    s, lp = d.sample_with_log_prob()
    np.testing.assert_allclose(
        lp.array, d.log_prob(s.array).array, rtol=1e-4, atol=1e-4
    )


def test_gaussian_log_prob_gradients_match_closed_form(rng):
    mean = kusari.Variable(rng.normal(size=(3, 2)).astype(np.float32))
    var = kusari.Variable(np.exp(rng.normal(size=(3, 2))).astype(np.float32))
    x = rng.normal(size=(3, 2)).astype(np.float32)
    d = D.GaussianDistribution(mean, var)
    kusari.functions.sum(d.log_prob(x)).backward()
    m, v = mean.array.astype(np.float64), var.array.astype(np.float64)
    np.testing.assert_allclose(mean.grad, (x - m) / v, rtol=1e-4)
    np.testing.assert_allclose(
        var.grad, -0.5 / v + (x - m) ** 2 / (2 * v * v), rtol=1e-4
    )


def test_gaussian_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match="GaussianDistribution: mean and var"):
        D.GaussianDistribution(
            np.zeros((2, 3), np.float32), np.ones((2, 2), np.float32)
        )


# ---- tanh-squashed Gaussian -----------------------------------------------


def test_squashed_log_prob_is_change_of_variables(rng):
    mean = rng.normal(size=(4, 2))
    var = np.exp(rng.normal(size=(4, 2)) * 0.5)
    u = rng.normal(size=(4, 2))
    y = np.tanh(u)
    d = D.SquashedGaussianDistribution(mean.astype(np.float32), var.astype(np.float32))
    expected = _gauss_log_prob(u, mean, var) - np.log(1 - y**2).sum(1)
    np.testing.assert_allclose(
        d.log_prob(y.astype(np.float32)).array, expected, rtol=1e-3, atol=1e-3
    )
    np.testing.assert_allclose(d.most_probable.array, np.tanh(mean), rtol=1e-5)


def test_squashed_sample_with_log_prob_is_consistent(rng):
    d = D.SquashedGaussianDistribution(
        rng.normal(size=(50, 3)).astype(np.float32),
        np.full((50, 3), 0.3, np.float32),
    )
    y, lp = d.sample_with_log_prob()
    assert np.all(np.abs(y.array) < 1)
    np.testing.assert_allclose(
        lp.array, d.log_prob(y.array).array, rtol=1e-3, atol=1e-2
    )
    assert np.all(np.abs(d.sample().array) < 1)


def test_squashed_entropy_matches_monte_carlo(rng):
    mean = np.array([[0.0, 1.5], [-0.7, 0.2]])
    var = np.array([[1.0, 0.5], [2.0, 0.1]])
    d = D.SquashedGaussianDistribution(mean.astype(np.float32), var.astype(np.float32))
    u = mean + np.sqrt(var) * rng.normal(size=(400000, 2, 2))
    log_q = (
        -0.5 * np.log(2 * np.pi * var)
        - (u - mean) ** 2 / (2 * var)
        - np.log1p(-(np.tanh(u) ** 2))
    ).sum(-1)
    np.testing.assert_allclose(d.entropy.array, -log_q.mean(0), atol=1e-2)


def test_squashed_reparameterised_sample_passes_gradient(rng):
    mean = kusari.Variable(np.zeros((2, 2), np.float32))
    var = kusari.Variable(np.ones((2, 2), np.float32))
    y, lp = D.SquashedGaussianDistribution(mean, var).sample_with_log_prob()
    kusari.functions.sum(y - lp).backward()
    assert mean.grad is not None and np.abs(mean.grad).sum() > 0
    assert var.grad is not None and np.abs(var.grad).sum() > 0


def test_squashed_entropy_gradient_matches_finite_difference():
    mean = np.array([[0.3, -0.8]])
    var = np.array([[0.7, 1.3]])

    def ent(m):
        d = D.SquashedGaussianDistribution(m, var.copy())
        return float(d.entropy.array.sum())

    m = kusari.Variable(mean.copy())
    kusari.functions.sum(
        D.SquashedGaussianDistribution(m, var.copy()).entropy
    ).backward()
    h = 1e-5
    for j in range(2):
        e = np.zeros_like(mean)
        e[0, j] = h
        num = (ent(mean + e) - ent(mean - e)) / (2 * h)
        np.testing.assert_allclose(m.grad[0, j], num, rtol=1e-4, atol=1e-7)


# ---- deterministic ----------------------------------------------------------


def test_deterministic_distribution():
    x = kusari.Variable(np.array([[0.5, -0.5]], np.float32))
    d = D.ContinuousDeterministicDistribution(x)
    assert d.sample() is x and d.most_probable is x
    with pytest.raises(RuntimeError, match="log_prob is not defined"):
        d.log_prob(x.array)
    with pytest.raises(RuntimeError, match="entropy"):
        _ = d.entropy
    np.testing.assert_array_equal(d.copy().sample().array, x.array)


def test_kl_between_different_families_is_refused():
    s = D.SoftmaxDistribution(np.zeros((1, 2), np.float32))
    g = D.GaussianDistribution(
        np.zeros((1, 2), np.float32), np.ones((1, 2), np.float32)
    )
    with pytest.raises(TypeError, match="expected a GaussianDistribution"):
        g.kl(s)
    with pytest.raises(TypeError, match="expected a CategoricalDistribution"):
        s.kl(g)


@pytest.mark.parametrize(
    "make",
    [
        lambda r: D.SoftmaxDistribution(r.normal(size=(6, 4)).astype(np.float32)),
        lambda r: D.SoftmaxDistribution(
            r.normal(size=(6, 4)).astype(np.float32), min_prob=0.05
        ),
        lambda r: D.GaussianDistribution(
            r.normal(size=(6, 2)).astype(np.float32),
            np.exp(r.normal(size=(6, 2))).astype(np.float32),
        ),
        lambda r: D.SquashedGaussianDistribution(
            r.normal(size=(6, 2)).astype(np.float32), np.full((6, 2), 0.5, np.float32)
        ),
    ],
)
def test_sample_arrays_agree_with_log_prob_and_entropy(rng, make):
    d = make(rng)
    action, log_p, ent = d.sample_arrays()
    assert not isinstance(action, kusari.Variable)
    np.testing.assert_allclose(log_p, d.log_prob(action).array, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(ent, d.entropy.array, rtol=1e-5, atol=1e-6)
    assert d.sample_arrays(with_entropy=False)[2] is None


def test_distributions_on_a_device(device):
    dev = kusari.get_device(device)
    r = np.random.default_rng(5)
    logits = dev.send(r.normal(size=(4, 3)).astype(np.float32))
    mean = dev.send(r.normal(size=(4, 2)).astype(np.float32))
    var = dev.send(np.full((4, 2), 0.5, np.float32))
    for d, q in [
        (D.SoftmaxDistribution(logits), D.SoftmaxDistribution(logits * 2)),
        (D.GaussianDistribution(mean, var), D.GaussianDistribution(mean + 1, var)),
        (
            D.SquashedGaussianDistribution(mean, var),
            D.SquashedGaussianDistribution(mean, var * 2),
        ),
    ]:
        action, log_p, ent = d.sample_arrays()
        assert kusari.backend.get_device_from_array(action) == dev
        np.testing.assert_allclose(
            kusari.backend.CpuDevice().send(log_p),
            kusari.backend.CpuDevice().send(d.log_prob(action).array),
            rtol=1e-4,
            atol=1e-3,
        )
        assert kusari.backend.CpuDevice().send(d.kl(q).array).shape == (4,)
        assert kusari.backend.CpuDevice().send(ent).shape == (4,)
