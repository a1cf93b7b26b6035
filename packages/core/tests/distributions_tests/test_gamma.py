import numpy as np
from _dist_helpers import (
    check_grad,
    check_kl_monte_carlo,
    check_sample_moments,
    check_sample_shapes,
    close,
)
from scipy import stats

from kusari import distributions as D
from kusari.distribution import kl_divergence

rng = np.random.default_rng(0)
K = rng.uniform(0.8, 4, (2, 3))
THETA = rng.uniform(0.5, 2, (2, 3))
X = rng.uniform(0.1, 5, (4, 2, 3))


def test_against_scipy():
    d = D.Gamma(K, THETA)
    ref = stats.gamma(K, scale=THETA)
    assert d.batch_shape == (2, 3) and d.event_shape == ()
    assert set(d.params) == {"k", "theta"}
    close(d.log_prob(X), ref.logpdf(X))
    close(d.entropy, ref.entropy())
    close(d.mean, ref.mean())
    close(d.variance, ref.var())


def test_outside_support():
    d = D.Gamma(K, THETA)
    assert (d.log_prob(-np.ones((2, 3))).array == -np.inf).all()


def test_sample():
    d = D.Gamma(K, THETA)
    check_sample_shapes(d)
    check_sample_moments(d)


def test_gradients():
    check_grad(lambda k, t: D.Gamma(k, t).log_prob(X[0]), K, THETA)
    check_grad(lambda k, t: D.Gamma(k, t).entropy, K, THETA)


def test_kl():
    p, q = D.Gamma(K, THETA), D.Gamma(K[::-1], THETA[::-1])
    check_kl_monte_carlo(p, q)
    check_grad(lambda k, t: kl_divergence(D.Gamma(k, t), q), K, THETA)
