import numpy as np
import pytest
from _dist_helpers import check_grad, check_kl_monte_carlo, check_sample_shapes, close
from scipy import stats

from kusari import distributions as D
from kusari.distribution import kl_divergence

rng = np.random.default_rng(0)
LOC = rng.uniform(-1, 1, (2, 3, 4))
SCALE = rng.uniform(0.5, 2, (2, 3, 4))
X = rng.uniform(-2, 2, (5, 2, 3, 4))


@pytest.mark.parametrize(
    "ndims,batch,event",
    [
        (None, (2,), (3, 4)),
        (0, (2, 3, 4), ()),
        (1, (2, 3), (4,)),
        (3, (), (2, 3, 4)),
    ],
)
def test_shapes_and_log_prob(ndims, batch, event):
    base = D.Normal(LOC, SCALE)
    d = D.Independent(base, ndims)
    assert d.batch_shape == batch and d.event_shape == event
    axes = tuple(range(X.ndim - len(event), X.ndim))
    ref = stats.norm(LOC, SCALE)
    close(d.log_prob(X), ref.logpdf(X).sum(axis=axes))
    close(d.log_cdf(X), ref.logcdf(X).sum(axis=axes))
    close(d.cdf(X), ref.cdf(X).prod(axis=axes))
    close(d.entropy, ref.entropy().sum(axis=tuple(a - 1 for a in axes)))
    close(d.mean, LOC)
    close(d.variance, SCALE**2)
    close(d.stddev, SCALE)
    check_sample_shapes(d)
    assert all(d.params[k] is v for k, v in base.params.items())
    assert repr(d).startswith("Independent(Normal(")


def test_covariance():
    d = D.Independent(D.Normal(LOC, SCALE), 1)
    cov = d.covariance.array
    assert cov.shape == (2, 3, 4, 4)
    close(cov[1, 2], np.diag(SCALE[1, 2] ** 2))


def test_icdf_raises():
    with pytest.raises(RuntimeError):
        D.Independent(D.Normal(LOC, SCALE)).icdf(X)


def test_gradients():
    check_grad(lambda m, s: D.Independent(D.Normal(m, s)).log_prob(X[0]), LOC, SCALE)


def test_kl():
    p = D.Independent(D.Normal(LOC, SCALE), 2)
    q = D.Independent(D.Normal(LOC[::-1], SCALE[::-1]), 2)
    check_kl_monte_carlo(p, q, tol=0.05)
    base = kl_divergence(p.distribution, q.distribution).array
    close(kl_divergence(p, q), base.sum(axis=(1, 2)))
    with pytest.raises(ValueError):
        kl_divergence(p, D.Independent(D.Normal(LOC, SCALE), 1))


def test_bad_ndims():
    with pytest.raises(ValueError, match="reinterpreted_batch_ndims"):
        D.Independent(D.Normal(LOC, SCALE), 4)
