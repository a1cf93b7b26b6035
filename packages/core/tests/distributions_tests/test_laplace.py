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
LOC = rng.uniform(-1, 1, (2, 3))
SCALE = rng.uniform(0.5, 2, (2, 3))
X = rng.uniform(-3, 3, (4, 2, 3))


def test_against_scipy():
    d = D.Laplace(LOC, SCALE)
    ref = stats.laplace(LOC, SCALE)
    assert d.batch_shape == (2, 3) and d.event_shape == ()
    close(d.log_prob(X), ref.logpdf(X))
    close(d.cdf(X), ref.cdf(X))
    for q in (0.2, 0.5, 0.9):
        close(d.icdf(np.full((2, 3), q)), ref.ppf(q))
    close(d.entropy, ref.entropy())
    close(d.mean, ref.mean())
    close(d.mode, LOC)
    close(d.variance, ref.var())
    close(d.stddev, ref.std())


def test_sample():
    d = D.Laplace(LOC, SCALE)
    check_sample_shapes(d)
    check_sample_moments(d)


def test_gradients():
    check_grad(lambda m, s: D.Laplace(m, s).log_prob(X[0]), LOC, SCALE)
    check_grad(lambda m, s: D.Laplace(m, s).cdf(X[0]), LOC, SCALE)


def test_kl():
    p, q = D.Laplace(LOC, SCALE), D.Laplace(LOC[::-1], SCALE[::-1])
    check_kl_monte_carlo(p, q)
    check_grad(lambda m, s: kl_divergence(D.Laplace(m, s), q), LOC, SCALE)
