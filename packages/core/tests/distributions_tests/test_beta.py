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
A = rng.uniform(0.8, 3, (2, 3))
B = rng.uniform(0.8, 3, (2, 3))
X = rng.uniform(0.05, 0.95, (4, 2, 3))


def test_against_scipy():
    d = D.Beta(A, B)
    ref = stats.beta(A, B)
    assert d.batch_shape == (2, 3) and d.event_shape == ()
    assert set(d.params) == {"a", "b"}
    close(d.log_prob(X), ref.logpdf(X))
    close(d.entropy, ref.entropy())
    close(d.mean, ref.mean())
    close(d.variance, ref.var())
    assert d.support == "[0, 1]"


def test_outside_support():
    d = D.Beta(np.full(3, 2.0), np.full(3, 2.0))
    lp = d.log_prob(np.array([-0.5, 0.5, 1.5])).array
    np.testing.assert_array_equal(lp[[0, 2]], [-np.inf, -np.inf])
    assert np.isfinite(lp[1])


def test_sample():
    d = D.Beta(A, B)
    check_sample_shapes(d)
    check_sample_moments(d)


def test_gradients():
    check_grad(lambda a, b: D.Beta(a, b).log_prob(X[0]), A, B)
    check_grad(lambda a, b: D.Beta(a, b).entropy, A, B)


def test_kl():
    p, q = D.Beta(A, B), D.Beta(B, A[::-1])
    check_kl_monte_carlo(p, q)
    check_grad(lambda a, b: kl_divergence(D.Beta(a, b), q), A, B)


def test_bad_arguments():
    with pytest.raises(TypeError):
        D.Beta(A, None)
