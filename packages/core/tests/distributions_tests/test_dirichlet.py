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

from kusari import distributions as D
from kusari.distribution import kl_divergence

rng = np.random.default_rng(0)
ALPHA = rng.uniform(0.8, 3, (2, 4))
X = rng.dirichlet(np.ones(4), (3, 2))


def test_against_scipy():
    d = D.Dirichlet(ALPHA)
    assert d.batch_shape == (2,) and d.event_shape == (4,)
    for i in range(2):
        ref = stats.dirichlet(ALPHA[i])
        close(d.log_prob(X).array[:, i], [ref.logpdf(x) for x in X[:, i]])
        close(d.entropy.array[i], ref.entropy())
        close(d.mean.array[i], ref.mean())
        close(d.variance.array[i], ref.var())


def test_sample():
    d = D.Dirichlet(ALPHA)
    check_sample_shapes(d)
    check_sample_moments(d)
    close(d.sample(10).array.sum(-1), np.ones((10, 2)))


def test_gradients():
    check_grad(lambda a: D.Dirichlet(a).log_prob(X[0]), ALPHA)
    check_grad(lambda a: D.Dirichlet(a).entropy, ALPHA)


def test_kl():
    p, q = D.Dirichlet(ALPHA), D.Dirichlet(ALPHA[::-1, ::-1])
    check_kl_monte_carlo(p, q)
    check_grad(lambda a: kl_divergence(D.Dirichlet(a), q), ALPHA)


def test_bad_arguments():
    with pytest.raises(ValueError, match="axis"):
        D.Dirichlet(np.array(1.0))
