import numpy as np
from _dist_helpers import (
    check_grad,
    check_kl_monte_carlo,
    check_sample_shapes,
    close,
)
from scipy import stats

from kusari import distributions as D
from kusari.distribution import kl_divergence

rng = np.random.default_rng(0)
SCALE = rng.uniform(0.5, 1.5, (2, 3))
ALPHA = rng.uniform(2.5, 5, (2, 3))
X = rng.uniform(1.6, 4, (4, 2, 3))


def test_against_scipy():
    d = D.Pareto(SCALE, ALPHA)
    ref = stats.pareto(ALPHA, scale=SCALE)
    assert d.batch_shape == (2, 3) and d.event_shape == ()
    assert set(d.params) == {"scale", "alpha"}
    close(d.log_prob(X), ref.logpdf(X))
    close(d.cdf(X), ref.cdf(X))
    close(d.icdf(np.full((2, 3), 0.3)), ref.ppf(0.3))
    close(d.entropy, ref.entropy())
    close(d.mean, ref.mean())
    close(d.variance, ref.var())
    close(d.mode, SCALE)
    for bad in (0.4, -1.0):
        assert (d.log_prob(np.full((2, 3), bad)).array == -np.inf).all()
        close(d.cdf(np.full((2, 3), bad)), 0.0)


def test_infinite_moments():
    d = D.Pareto(np.ones(2), np.array([0.5, 1.5]))
    assert d.mean.array[0] == np.inf and np.isfinite(d.mean.array[1])
    assert (d.variance.array == np.inf).all()


def test_sample():
    d = D.Pareto(SCALE, ALPHA)
    check_sample_shapes(d)
    s = d.sample(50000).array
    assert (s >= SCALE).all()
    close(s.mean(0), d.mean.array, rtol=0.05)


def test_gradients():
    check_grad(lambda s, a: D.Pareto(s, a).log_prob(X[0]), SCALE, ALPHA)
    check_grad(lambda s, a: D.Pareto(s, a).cdf(X[0]), SCALE, ALPHA)


def test_kl():
    p = D.Pareto(SCALE, ALPHA)
    q = D.Pareto(SCALE * 0.8, ALPHA[::-1])
    check_kl_monte_carlo(p, q)
    inf = kl_divergence(D.Pareto(SCALE, ALPHA), D.Pareto(SCALE * 1.5, ALPHA)).array
    assert (inf == np.inf).all()
