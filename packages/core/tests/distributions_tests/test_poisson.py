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
LAM = rng.uniform(0.5, 5, (2, 3))
X = rng.integers(0, 8, (4, 2, 3)).astype(np.float64)


def test_against_scipy():
    d = D.Poisson(LAM)
    ref = stats.poisson(LAM)
    assert d.batch_shape == (2, 3) and d.event_shape == ()
    close(d.log_prob(X), ref.logpmf(X))
    close(d.mean, ref.mean())
    close(d.variance, ref.var())
    assert d.support == "non negative integer"
    lp = d.log_prob(np.array([-1.0, 0.5])[:, None, None]).array
    assert (lp == -np.inf).all()


def test_sample():
    d = D.Poisson(LAM)
    check_sample_shapes(d)
    check_sample_moments(d)
    assert d.sample(2).dtype == LAM.dtype


def test_gradients():
    check_grad(lambda lam: D.Poisson(lam).log_prob(X[0]), LAM)


def test_kl():
    p, q = D.Poisson(LAM), D.Poisson(LAM[::-1])
    check_kl_monte_carlo(p, q)
    a, b = LAM, LAM[::-1]
    close(kl_divergence(p, q), a * np.log(a / b) - a + b)
