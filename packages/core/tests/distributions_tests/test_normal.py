import numpy as np
import pytest
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
X = rng.uniform(-2, 2, (4, 2, 3))


def test_shapes_and_params():
    d = D.Normal(LOC, SCALE)
    assert d.batch_shape == (2, 3)
    assert d.event_shape == ()
    assert set(d.params) == {"loc", "scale"}
    assert d.support == "real"
    assert "Normal(" in repr(d)


@pytest.mark.parametrize("use_log_scale", [False, True])
def test_against_scipy(use_log_scale):
    if use_log_scale:
        d = D.Normal(LOC, log_scale=np.log(SCALE))
    else:
        d = D.Normal(LOC, SCALE)
    ref = stats.norm(LOC, SCALE)
    close(d.log_prob(X), ref.logpdf(X))
    close(d.prob(X), ref.pdf(X))
    close(d.cdf(X), ref.cdf(X))
    close(d.log_cdf(X), ref.logcdf(X))
    close(d.survival_function(X), ref.sf(X))
    close(d.log_survival_function(X), ref.logsf(X))
    close(d.icdf(np.full((2, 3), 0.3)), ref.ppf(0.3))
    close(d.entropy, ref.entropy())
    close(d.mean, ref.mean())
    close(d.mode, LOC)
    close(d.variance, ref.var())
    close(d.stddev, ref.std())
    close(d.perplexity(X), np.exp(-ref.logpdf(X)))


def test_float32_dtype_is_kept():
    d = D.Normal(LOC.astype(np.float32), SCALE.astype(np.float32))
    assert d.log_prob(X.astype(np.float32)).dtype == np.float32
    assert d.entropy.dtype == np.float32
    assert d.sample(2).dtype == np.float32


def test_sample():
    d = D.Normal(LOC, SCALE)
    check_sample_shapes(d)
    check_sample_moments(d)


def test_sample_is_reparameterised():
    loc = kusari.Variable(LOC.copy())
    scale = kusari.Variable(SCALE.copy())
    s = D.Normal(loc, scale).sample(10)
    kusari.functions.sum(s).backward()
    close(loc.grad, np.full(LOC.shape, 10.0))
    assert scale.grad is not None


def test_log_prob_gradient():
    check_grad(lambda m, s: D.Normal(m, s).log_prob(X[0]), LOC, SCALE)
    check_grad(lambda m, ls: D.Normal(m, log_scale=ls).cdf(X[0]), LOC, np.log(SCALE))


def test_kl():
    p = D.Normal(LOC, SCALE)
    q = D.Normal(LOC[::-1], SCALE[::-1])
    check_kl_monte_carlo(p, q)
    m1, s1, m2, s2 = LOC, SCALE, LOC[::-1], SCALE[::-1]
    expected = np.log(s2 / s1) + (s1**2 + (m1 - m2) ** 2) / (2 * s2**2) - 0.5
    close(kl_divergence(p, q), expected)
    check_grad(lambda a, b: kl_divergence(D.Normal(a, b), q), LOC, SCALE)


def test_bad_arguments():
    with pytest.raises(ValueError, match="scale or log_scale"):
        D.Normal(LOC)
    with pytest.raises(ValueError, match="scale or log_scale"):
        D.Normal(LOC, SCALE, log_scale=np.log(SCALE))
    with pytest.raises(TypeError, match="float"):
        D.Normal(np.zeros(2, np.int32), np.ones(2))
