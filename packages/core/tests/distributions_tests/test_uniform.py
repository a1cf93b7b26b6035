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

import kusari
from kusari import distributions as D
from kusari.distribution import kl_divergence

rng = np.random.default_rng(0)
LOW = rng.uniform(-1, 0, (2, 3))
HIGH = LOW + rng.uniform(0.5, 2, (2, 3))
X = rng.uniform(-1.5, 2.5, (4, 2, 3))


@pytest.mark.parametrize("by_loc", [False, True])
def test_against_scipy(by_loc):
    if by_loc:
        d = D.Uniform(loc=LOW, scale=HIGH - LOW)
    else:
        d = D.Uniform(low=LOW, high=HIGH)
    ref = stats.uniform(LOW, HIGH - LOW)
    assert d.batch_shape == (2, 3) and d.event_shape == ()
    close(d.log_prob(X), ref.logpdf(X))
    close(d.cdf(X), ref.cdf(X))
    close(d.icdf(np.full((2, 3), 0.3)), ref.ppf(0.3))
    close(d.entropy, ref.entropy())
    close(d.mean, ref.mean())
    close(d.variance, ref.var())
    close(d.low, LOW)
    close(d.high, HIGH)


def test_sample():
    d = D.Uniform(LOW, HIGH)
    check_sample_shapes(d)
    check_sample_moments(d)
    s = d.sample(100).array
    assert ((s >= LOW) & (s <= HIGH)).all()
    high = kusari.Variable(HIGH.copy())
    kusari.functions.sum(D.Uniform(LOW, high).sample(4)).backward()
    assert (high.grad > 0).all()


def test_gradients():
    inside = (LOW + HIGH) / 2
    check_grad(lambda lo, hi: D.Uniform(lo, hi).log_prob(inside), LOW, HIGH)
    check_grad(lambda lo, hi: D.Uniform(lo, hi).cdf(inside), LOW, HIGH)


def test_kl():
    p = D.Uniform(LOW, HIGH)
    q = D.Uniform(LOW - 0.5, HIGH + 1.0)
    check_kl_monte_carlo(p, q)
    close(kl_divergence(p, q), np.log((HIGH - LOW + 1.5) / (HIGH - LOW)))
    assert (kl_divergence(q, p).array == np.inf).all()


def test_bad_arguments():
    with pytest.raises(ValueError):
        D.Uniform()
    with pytest.raises(ValueError):
        D.Uniform(low=LOW)
    with pytest.raises(ValueError):
        D.Uniform(low=LOW, high=HIGH, loc=LOW)
    with pytest.raises(ValueError):
        D.Uniform(loc=LOW)
