import numpy as np
import pytest
from _dist_helpers import check_grad, check_kl_monte_carlo, check_sample_shapes, close
from scipy import special

from kusari import distributions as D
from kusari.distribution import kl_divergence

rng = np.random.default_rng(0)
LOGIT = rng.standard_normal((2, 3, 4))
P = special.softmax(LOGIT, axis=-1)
X = rng.integers(0, 4, (5, 2, 3))


def _ref_log_prob(x):
    return np.take_along_axis(
        np.log(np.broadcast_to(P, x.shape + (4,))), x[..., None], axis=-1
    )[..., 0]


@pytest.mark.parametrize("by_logit", [False, True])
def test_log_prob_entropy(by_logit):
    d = D.Categorical(logit=LOGIT) if by_logit else D.Categorical(P)
    assert d.batch_shape == (2, 3) and d.event_shape == ()
    close(d.log_prob(X), _ref_log_prob(X))
    close(d.log_prob(X[0]), _ref_log_prob(X[0]))
    close(d.prob(X), np.exp(_ref_log_prob(X)))
    close(d.entropy, -(P * np.log(P)).sum(-1))
    close(d.p, P)


def test_zero_probability():
    d = D.Categorical(np.array([0.0, 0.4, 0.6]))
    close(d.entropy, -(0.4 * np.log(0.4) + 0.6 * np.log(0.6)))
    assert d.log_prob(np.array(0)).array == -np.inf
    assert (d.sample(200).array != 0).all()


def test_sample():
    d = D.Categorical(P)
    check_sample_shapes(d)
    s = d.sample(20000).array
    assert s.dtype == np.int32
    freq = (s[..., None] == np.arange(4)).mean(0)
    np.testing.assert_allclose(freq, P, atol=0.02)


def test_gradients():
    check_grad(lambda lg: D.Categorical(logit=lg).log_prob(X[0]), LOGIT)
    check_grad(lambda p: D.Categorical(p).log_prob(X[0]), P)


def test_kl():
    p = D.Categorical(P)
    q = D.Categorical(logit=LOGIT[::-1])
    check_kl_monte_carlo(p, q)
    q_p = P[::-1]
    close(kl_divergence(p, q), (P * np.log(P / q_p)).sum(-1))


def test_bad_arguments():
    with pytest.raises(ValueError):
        D.Categorical()
    with pytest.raises(ValueError):
        D.Categorical(P, logit=LOGIT)
