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


def test_standard_cdf_and_icdf_helpers():
    from kusari import gradient_check
    from kusari.distributions.laplace import _laplace_cdf, _laplace_icdf

    z = rng.normal(size=(2, 3))
    close(_laplace_cdf(z), stats.laplace.cdf(z))
    p = rng.uniform(0.02, 0.98, (2, 3))
    close(_laplace_icdf(p), stats.laplace.ppf(p))
    close(_laplace_cdf(_laplace_icdf(p)), p)
    gy = rng.normal(size=(2, 3))
    gradient_check.check_backward(_laplace_cdf, z, gy, atol=1e-4, rtol=1e-4)
    gradient_check.check_backward(_laplace_icdf, p, gy, atol=1e-4, rtol=1e-4)
    assert _laplace_cdf(z.astype(np.float32)).dtype == np.float32
