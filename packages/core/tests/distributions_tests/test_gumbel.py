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
from kusari.distribution import kl_divergence

rng = np.random.default_rng(0)
LOC = rng.uniform(-1, 1, (2, 3))
SCALE = rng.uniform(0.5, 2, (2, 3))
X = rng.uniform(-2, 4, (4, 2, 3))


def test_against_scipy():
    d = D.Gumbel(LOC, SCALE)
    ref = stats.gumbel_r(LOC, SCALE)
    assert d.batch_shape == (2, 3) and d.event_shape == ()
    close(d.log_prob(X), ref.logpdf(X))
    close(d.cdf(X), ref.cdf(X))
    close(d.log_cdf(X), ref.logcdf(X))
    close(d.icdf(np.full((2, 3), 0.3)), ref.ppf(0.3))
    close(d.entropy, ref.entropy())
    close(d.mean, ref.mean())
    close(d.variance, ref.var())


def test_sample():
    d = D.Gumbel(LOC, SCALE)
    check_sample_shapes(d)
    check_sample_moments(d)
    scale = kusari.Variable(SCALE.copy())
    kusari.functions.sum(D.Gumbel(LOC, scale).sample(3)).backward()
    assert scale.grad is not None


def test_gradients():
    check_grad(lambda m, s: D.Gumbel(m, s).log_prob(X[0]), LOC, SCALE)


def test_kl():
    p, q = D.Gumbel(LOC, SCALE), D.Gumbel(LOC[::-1], SCALE[::-1])
    check_kl_monte_carlo(p, q)
    check_grad(lambda m, s: kl_divergence(D.Gumbel(m, s), q), LOC, SCALE)
    close(kl_divergence(p, p), np.zeros((2, 3)), atol=1e-12)
