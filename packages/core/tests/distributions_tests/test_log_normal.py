import numpy as np
from _dist_helpers import (
    check_grad,
    check_kl_monte_carlo,
    check_sample_moments,
    check_sample_shapes,
    close,
)
from scipy import stats

import kusari
from kusari import distributions as D

rng = np.random.default_rng(0)
MU = rng.uniform(-0.5, 0.5, (2, 3))
SIGMA = rng.uniform(0.2, 0.6, (2, 3))
X = rng.uniform(0.2, 3, (4, 2, 3))


def test_against_scipy():
    d = D.LogNormal(MU, SIGMA)
    ref = stats.lognorm(SIGMA, scale=np.exp(MU))
    assert d.batch_shape == (2, 3) and d.event_shape == ()
    assert set(d.params) == {"mu", "sigma"}
    close(d.log_prob(X), ref.logpdf(X))
    close(d.cdf(X), ref.cdf(X))
    close(d.icdf(np.full((2, 3), 0.3)), ref.ppf(0.3))
    close(d.entropy, ref.entropy())
    close(d.mean, ref.mean())
    close(d.variance, ref.var())
    close(d.mode, np.exp(MU - SIGMA**2))


def test_outside_support():
    lp = D.LogNormal(MU, SIGMA).log_prob(np.zeros((2, 3))).array
    assert (lp == -np.inf).all()


def test_sample():
    d = D.LogNormal(MU, SIGMA)
    check_sample_shapes(d)
    check_sample_moments(d)
    mu = kusari.Variable(MU.copy())
    kusari.functions.sum(D.LogNormal(mu, SIGMA).sample(2)).backward()
    assert (mu.grad > 0).all()


def test_gradients():
    check_grad(lambda m, s: D.LogNormal(m, s).log_prob(X[0]), MU, SIGMA)


def test_kl():
    check_kl_monte_carlo(D.LogNormal(MU, SIGMA), D.LogNormal(MU[::-1], SIGMA[::-1]))
