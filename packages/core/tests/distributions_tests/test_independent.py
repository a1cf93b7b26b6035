import numpy as np
import pytest
from _dist_helpers import check_grad, check_kl_monte_carlo, check_sample_shapes, close
from scipy import stats

import kusari
import kusari.functions as F
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
    with pytest.raises(ValueError, match="event shapes"):
        kl_divergence(p, D.Independent(D.Normal(LOC, SCALE), 1))


def test_vae_style_usage():
    """Posterior with batch (B,) against a prior with batch (), as Chainer's VAE."""
    mu = kusari.Variable(LOC[0].copy())  # (3, 4): B=3, latent 4
    ln_sigma = kusari.Variable(np.log(SCALE[0]))
    q_z = D.Independent(D.Normal(loc=mu, log_scale=ln_sigma))
    prior = D.Independent(
        D.Normal(np.zeros(4), scale=np.ones(4)), reinterpreted_batch_ndims=1
    )
    assert q_z.batch_shape == (3,) and prior.batch_shape == ()
    kl = kl_divergence(q_z, prior)
    assert kl.shape == (3,)
    m, s = LOC[0], SCALE[0]
    close(kl, (0.5 * (s**2 + m**2 - 1) - np.log(s)).sum(-1))
    z = q_z.sample(5)
    assert z.shape == (5, 3, 4)
    p_x = D.Independent(D.Bernoulli(logit=z * 2.0), reinterpreted_batch_ndims=1)
    x = (np.random.rand(5, 3, 4) > 0.5).astype(np.float64)
    loss = -F.mean(p_x.log_prob(x)) + F.mean(kl)
    loss.backward()
    assert mu.grad is not None and ln_sigma.grad is not None


def test_bad_ndims():
    with pytest.raises(ValueError, match="reinterpreted_batch_ndims"):
        D.Independent(D.Normal(LOC, SCALE), 4)
