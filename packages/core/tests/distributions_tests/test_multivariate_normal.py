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
LOC = rng.uniform(-1, 1, (2, 3))
_A = rng.standard_normal((2, 3, 3))
COV = _A @ _A.transpose(0, 2, 1) + np.eye(3)
L = np.linalg.cholesky(COV)
X = rng.standard_normal((4, 2, 3))


def test_against_scipy():
    d = D.MultivariateNormal(LOC, scale_tril=L)
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    assert set(d.params) == {"loc", "scale_tril"}
    lp = d.log_prob(X).array
    ent = d.entropy.array
    for i in range(2):
        ref = stats.multivariate_normal(LOC[i], COV[i])
        close(lp[:, i], ref.logpdf(X[:, i]))
        close(ent[i], ref.entropy())
    close(d.mean, LOC)
    close(d.covariance, COV)
    close(d.variance, np.diagonal(COV, axis1=-2, axis2=-1))


def test_unbatched():
    d = D.MultivariateNormal(LOC[0], scale_tril=L[0])
    assert d.batch_shape == () and d.event_shape == (3,)
    ref = stats.multivariate_normal(LOC[0], COV[0])
    close(d.log_prob(X[:, 0]), ref.logpdf(X[:, 0]))
    check_sample_shapes(d)


def test_sample():
    d = D.MultivariateNormal(LOC, scale_tril=L)
    check_sample_shapes(d)
    check_sample_moments(d)
    s = d.sample(20000).array
    close(np.cov(s[:, 1].T), COV[1], rtol=0.1, atol=0.1)
    loc = kusari.Variable(LOC.copy())
    kusari.functions.sum(D.MultivariateNormal(loc, scale_tril=L).sample(2)).backward()
    close(loc.grad, np.full(LOC.shape, 2.0))


def test_gradients():
    mask = np.tril(np.ones((3, 3)))

    def f(m, lt):
        return D.MultivariateNormal(m, scale_tril=lt * mask).log_prob(X[0])

    check_grad(f, LOC, L)


def test_kl():
    p = D.MultivariateNormal(LOC, scale_tril=L)
    q = D.MultivariateNormal(LOC[::-1], scale_tril=L[::-1])
    check_kl_monte_carlo(p, q)
    s1, s2 = COV, COV[::-1]
    d = LOC[::-1] - LOC
    inv2 = np.linalg.inv(s2)
    expected = 0.5 * (
        np.trace(inv2 @ s1, axis1=-2, axis2=-1)
        + np.einsum("bi,bij,bj->b", d, inv2, d)
        - 3
        + np.linalg.slogdet(s2)[1]
        - np.linalg.slogdet(s1)[1]
    )
    close(kl_divergence(p, q), expected)
    mask = np.tril(np.ones((3, 3)))
    check_grad(
        lambda m, lt: kl_divergence(D.MultivariateNormal(m, scale_tril=lt * mask), q),
        LOC,
        L,
    )


def test_bad_arguments():
    with pytest.raises(ValueError, match="scale_tril"):
        D.MultivariateNormal(LOC)
    with pytest.raises(ValueError, match="shape"):
        D.MultivariateNormal(LOC, scale_tril=L[:, :2])


@pytest.mark.parametrize("lower", [True, False])
def test_triangular_inv_reads_one_triangle(lower):
    from kusari import gradient_check
    from kusari.distributions.multivariate_normal import _triangular_inv

    tri = np.tril(rng.uniform(-1, 1, (3, 3))) + 2 * np.eye(3)
    if not lower:
        tri = tri.T
    # junk in the other triangle changes neither the inverse nor the gradient
    junk = tri + (
        np.triu(np.ones((3, 3)), 1) if lower else np.tril(np.ones((3, 3)), -1)
    )
    y = _triangular_inv(junk, lower=lower)
    np.testing.assert_allclose(y.array, np.linalg.inv(tri), rtol=1e-10)
    x = kusari.Variable(junk)
    z = _triangular_inv(x, lower=lower)
    z.grad = np.ones_like(z.array)
    z.backward()
    other = (
        np.triu(np.ones((3, 3), bool), 1)
        if lower
        else np.tril(np.ones((3, 3), bool), -1)
    )
    assert not x.grad[other].any() and x.grad[~other].any()
    gy, ggx = rng.normal(size=(2, 3, 3))
    gradient_check.check_double_backward(
        lambda a: _triangular_inv(a, lower=lower), tri, gy, ggx, atol=1e-4, rtol=1e-4
    )
    assert _triangular_inv(np.zeros((0, 0), np.float32)).shape == (0, 0)


def test_triangular_inv_needs_a_square_matrix():
    from kusari.distributions.multivariate_normal import _triangular_inv

    with pytest.raises(ValueError, match="square 2-D matrix, got shape"):
        _triangular_inv(np.zeros((2, 3)))
