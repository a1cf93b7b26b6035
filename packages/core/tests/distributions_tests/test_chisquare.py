import numpy as np
from _dist_helpers import check_grad, check_sample_moments, check_sample_shapes, close
from scipy import stats

from kusari import distributions as D

rng = np.random.default_rng(0)
K = rng.uniform(1, 5, (2, 3))
X = rng.uniform(0.1, 6, (4, 2, 3))


def test_against_scipy():
    d = D.Chisquare(K)
    ref = stats.chi2(K)
    assert d.batch_shape == (2, 3) and d.event_shape == ()
    assert list(d.params) == ["k"]
    close(d.log_prob(X), ref.logpdf(X))
    close(d.entropy, ref.entropy())
    close(d.mean, ref.mean())
    close(d.variance, ref.var())
    assert d.support == "positive"


def test_outside_support():
    assert (D.Chisquare(K).log_prob(-np.ones((2, 3))).array == -np.inf).all()


def test_sample():
    d = D.Chisquare(K)
    check_sample_shapes(d)
    check_sample_moments(d)


def test_gradients():
    check_grad(lambda k: D.Chisquare(k).log_prob(X[0]), K)
    check_grad(lambda k: D.Chisquare(k).entropy, K)
