import numpy as np
import pytest
from _dist_helpers import check_grad, check_sample_shapes, close
from scipy import stats

import kusari
from kusari import distributions as D

rng = np.random.default_rng(0)
LOC = rng.uniform(-1, 1, (2, 3))
SCALE = rng.uniform(0.5, 2, (2, 3))
X = rng.uniform(-3, 3, (4, 2, 3))


def test_against_scipy():
    d = D.Cauchy(LOC, SCALE)
    ref = stats.cauchy(LOC, SCALE)
    assert d.batch_shape == (2, 3) and d.event_shape == ()
    close(d.log_prob(X), ref.logpdf(X))
    close(d.cdf(X), ref.cdf(X))
    close(d.icdf(np.full((2, 3), 0.7)), ref.ppf(0.7))
    close(d.entropy, ref.entropy())
    close(d.mode, LOC)
    assert d.support == "real"


def test_undefined_moments_warn():
    d = D.Cauchy(LOC, SCALE)
    with pytest.warns(RuntimeWarning, match="undefined"):
        assert np.isnan(d.mean.array).all()
    with pytest.warns(RuntimeWarning, match="undefined"):
        assert np.isnan(d.variance.array).all()


def test_sample():
    d = D.Cauchy(LOC, SCALE)
    check_sample_shapes(d)
    s = d.sample(20000).array
    close(np.median(s, 0), LOC, atol=0.1)
    loc = kusari.Variable(LOC.copy())
    kusari.functions.sum(D.Cauchy(loc, SCALE).sample(3)).backward()
    close(loc.grad, np.full(LOC.shape, 3.0))


def test_gradients():
    check_grad(lambda m, s: D.Cauchy(m, s).log_prob(X[0]), LOC, SCALE)
    check_grad(lambda m, s: D.Cauchy(m, s).cdf(X[0]), LOC, SCALE)
