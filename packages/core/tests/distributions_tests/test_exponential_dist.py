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
LAM = rng.uniform(0.5, 3, (2, 3))
X = rng.uniform(0.05, 3, (4, 2, 3))


def test_against_scipy():
    d = D.Exponential(LAM)
    ref = stats.expon(scale=1 / LAM)
    assert d.batch_shape == (2, 3) and d.event_shape == ()
    close(d.log_prob(X), ref.logpdf(X))
    close(d.cdf(X), ref.cdf(X))
    close(d.survival_function(X), ref.sf(X))
    close(d.log_survival_function(X), ref.logsf(X))
    close(d.icdf(np.full((2, 3), 0.4)), ref.ppf(0.4))
    close(d.entropy, ref.entropy())
    close(d.mean, ref.mean())
    close(d.variance, ref.var())
    close(d.mode, np.zeros((2, 3)))
    assert d.log_prob(-np.ones((2, 3))).array.max() == -np.inf
    close(d.cdf(-np.ones((2, 3))), 0.0)


def test_sample():
    d = D.Exponential(LAM)
    check_sample_shapes(d)
    check_sample_moments(d)
    lam = kusari.Variable(LAM.copy())
    kusari.functions.sum(D.Exponential(lam).sample(2)).backward()
    assert lam.grad is not None and (lam.grad < 0).all()


def test_gradients():
    check_grad(lambda lam: D.Exponential(lam).log_prob(X[0]), LAM)
    check_grad(lambda lam: D.Exponential(lam).cdf(X[0]), LAM)


def test_kl():
    p, q = D.Exponential(LAM), D.Exponential(LAM[::-1])
    check_kl_monte_carlo(p, q)
    a, b = LAM, LAM[::-1]
    close(kl_divergence(p, q), np.log(a / b) + b / a - 1)
