import numpy as np
import pytest
from _dist_helpers import (
    check_grad,
    check_kl_monte_carlo,
    check_sample_moments,
    check_sample_shapes,
    close,
)
from scipy import special

from kusari import distributions as D
from kusari.distribution import kl_divergence

rng = np.random.default_rng(0)
P = special.softmax(rng.standard_normal((2, 3, 4)), axis=-1)
IDX = rng.integers(0, 4, (5, 2, 3))
X = np.eye(4)[IDX]


def test_against_scipy():
    d = D.OneHotCategorical(P)
    assert d.batch_shape == (2, 3) and d.event_shape == (4,)
    ref = np.log(np.take_along_axis(np.broadcast_to(P, X.shape), IDX[..., None], -1))
    close(d.log_prob(X), ref[..., 0])
    close(d.entropy, -(P * np.log(P)).sum(-1))
    close(d.mean, P)
    close(d.variance, P * (1 - P))
    cov = d.covariance.array
    close(cov[0, 0], np.diag(P[0, 0]) - np.outer(P[0, 0], P[0, 0]))


def test_sample():
    d = D.OneHotCategorical(P)
    check_sample_shapes(d)
    check_sample_moments(d)
    s = d.sample(50).array
    assert (s.sum(-1) == 1).all()


def test_gradients():
    check_grad(lambda p: D.OneHotCategorical(p).log_prob(X[0]), P)


def test_kl():
    p, q = D.OneHotCategorical(P), D.OneHotCategorical(P[::-1])
    check_kl_monte_carlo(p, q)
    close(kl_divergence(p, q), (P * np.log(P / P[::-1])).sum(-1))


def test_bad_arguments():
    with pytest.raises(ValueError, match="axis"):
        D.OneHotCategorical(np.array(0.5))
