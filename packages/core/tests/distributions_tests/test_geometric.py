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

rng = np.random.default_rng(0)
P = rng.uniform(0.2, 0.8, (2, 3))
X = rng.integers(1, 6, (4, 2, 3)).astype(np.float64)


def test_against_scipy():
    d = D.Geometric(P)
    ref = stats.geom(P)
    assert d.batch_shape == (2, 3) and d.event_shape == ()
    close(d.log_prob(X), ref.logpmf(X))
    close(d.entropy, ref.entropy())
    close(d.mean, ref.mean())
    close(d.variance, ref.var())
    assert d.support == "positive integer"
    lp = d.log_prob(np.array([0.0, 1.5, 2.0])[:, None, None]).array
    assert (lp[:2] == -np.inf).all() and np.isfinite(lp[2]).all()


def test_sample():
    d = D.Geometric(P)
    check_sample_shapes(d)
    check_sample_moments(d)
    assert d.sample(10).array.min() >= 1


def test_gradients():
    check_grad(lambda p: D.Geometric(p).log_prob(X[0]), P)
    check_grad(lambda p: D.Geometric(p).entropy, P)


def test_kl():
    check_kl_monte_carlo(D.Geometric(P), D.Geometric(P[::-1]))
