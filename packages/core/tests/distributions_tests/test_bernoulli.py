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
P = rng.uniform(0.1, 0.9, (2, 3))
X = rng.integers(0, 2, (4, 2, 3)).astype(np.float64)


@pytest.mark.parametrize("by_logit", [False, True])
def test_against_scipy(by_logit):
    d = D.Bernoulli(logit=np.log(P / (1 - P))) if by_logit else D.Bernoulli(P)
    ref = stats.bernoulli(P)
    assert d.batch_shape == (2, 3) and d.event_shape == ()
    assert list(d.params) == (["logit"] if by_logit else ["p"])
    close(d.p, P)
    close(d.log_prob(X), ref.logpmf(X))
    close(d.prob(X), ref.pmf(X))
    close(d.entropy, ref.entropy())
    close(d.mean, ref.mean())
    close(d.variance, ref.var())
    assert d.support == "{0, 1}"


def test_extreme_probabilities():
    d = D.Bernoulli(np.array([0.0, 1.0, 0.0, 1.0]))
    lp = d.log_prob(np.array([0.0, 1.0, 1.0, 0.0]))
    np.testing.assert_array_equal(lp.array, [0.0, 0.0, -np.inf, -np.inf])
    close(d.entropy, np.zeros(4))


def test_binary_check():
    x = np.array([0.0, 0.5, 1.0])
    d = D.Bernoulli(np.full(3, 0.3), binary_check=True)
    lp = d.log_prob(x).array
    assert lp[1] == -np.inf
    close(lp[[0, 2]], np.log([0.7, 0.3]))
    assert np.isfinite(D.Bernoulli(np.full(3, 0.3)).log_prob(x).array).all()


def test_sample():
    d = D.Bernoulli(P)
    check_sample_shapes(d)
    check_sample_moments(d)
    s = d.sample(100).array
    assert set(np.unique(s)) <= {0.0, 1.0}


def test_gradients():
    check_grad(lambda p: D.Bernoulli(p).log_prob(X[0]), P)
    check_grad(lambda lg: D.Bernoulli(logit=lg).log_prob(X[0]), np.log(P / (1 - P)))
    check_grad(lambda p: D.Bernoulli(p).entropy, P)


def test_kl():
    p, q = D.Bernoulli(P), D.Bernoulli(P[::-1])
    check_kl_monte_carlo(p, q)
    a, b = P, P[::-1]
    close(
        kl_divergence(p, q),
        a * np.log(a / b) + (1 - a) * np.log((1 - a) / (1 - b)),
    )


def test_bad_arguments():
    with pytest.raises(ValueError, match="p or logit"):
        D.Bernoulli()
    with pytest.raises(ValueError, match="p or logit"):
        D.Bernoulli(P, logit=P)


def test_module_level_log_prob_helper():
    # Chainer 7's `bernoulli._bernoulli_log_prob(logit, x)`, which its
    # tests and some user code call directly.
    from kusari.distributions import bernoulli

    logit = np.log(P / (1 - P))
    y = bernoulli._bernoulli_log_prob(logit, X[0])
    close(y.array, stats.bernoulli.logpmf(X[0], P))
    check_grad(lambda lg: bernoulli._bernoulli_log_prob(lg, X[0]), logit)
    checked = bernoulli._bernoulli_log_prob(
        logit, np.full((2, 3), 0.5), binary_check=True
    )
    assert np.isneginf(checked.array).all()
