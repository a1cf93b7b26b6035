import numpy as np
import pytest

import kusari
from kusari import distributions as D
from kusari.distribution import (
    Distribution,
    cross_entropy,
    kl_divergence,
    register_kl,
)


class _A(Distribution):
    @property
    def batch_shape(self):
        return ()


class _B(_A):
    pass


def test_base_raises_not_implemented():
    d = Distribution()
    for name in (
        "batch_shape",
        "event_shape",
        "mean",
        "variance",
        "entropy",
        "covariance",
        "mode",
        "support",
        "params",
    ):
        with pytest.raises(NotImplementedError):
            getattr(d, name)
    with pytest.raises(NotImplementedError):
        d.log_prob(np.zeros(1))
    with pytest.raises(NotImplementedError):
        d.sample_n(1)
    with pytest.raises(NotImplementedError):
        d.cdf(np.zeros(1))
    assert repr(d) == "Distribution()"


def test_register_kl_and_lookup():
    @register_kl(_A, _A)
    def _kl(p, q):
        return "a-a"

    assert kl_divergence(_A(), _A()) == "a-a"
    # subclasses fall back to the registration of their bases
    assert kl_divergence(_B(), _A()) == "a-a"

    @register_kl(_B, _B)
    def _kl_b(p, q):
        return "b-b"

    assert kl_divergence(_B(), _B()) == "b-b"


def test_kl_not_registered():
    p = D.Normal(np.zeros(1), np.ones(1))
    q = D.Laplace(np.zeros(1), np.ones(1))
    with pytest.raises(NotImplementedError, match="Normal and Laplace"):
        kl_divergence(p, q)


def test_register_kl_rejects_non_distributions():
    with pytest.raises(TypeError):
        register_kl(int, _A)
    with pytest.raises(TypeError):
        register_kl(_A, "x")


def test_cross_entropy():
    p = D.Normal(np.array([0.0, 1.0]), np.array([1.0, 2.0]))
    q = D.Normal(np.array([1.0, 0.0]), np.array([2.0, 1.0]))
    ce = cross_entropy(p, q)
    expected = p.entropy.array + kl_divergence(p, q).array
    np.testing.assert_allclose(ce.array, expected)


def test_sample_shape_int_and_tuple():
    d = D.Exponential(np.ones((2,)))
    assert d.sample(np.int64(3)).shape == (3, 2)
    assert d.sample(()).shape == (2,)
    assert d.xp is np
    assert d.device.xp is np


def test_all_nineteen_exported():
    assert len(D.__all__) == 19
    for name in D.__all__:
        assert issubclass(getattr(D, name), Distribution)


_F = np.float32
_P = np.array([0.3, 0.6], _F)
_POS = np.array([1.5, 2.5], _F)
_Z = np.array([0.1, -0.2], _F)
_PK = np.array([[0.2, 0.8], [0.5, 0.5]], _F)
_L = np.tile(np.eye(2, dtype=_F), (2, 1, 1))

FLOAT32_CASES = {
    "Bernoulli": (lambda t: D.Bernoulli(t(_P)), np.array([0, 1], _F)),
    "Beta": (lambda t: D.Beta(t(_POS), t(_POS)), _P),
    "Categorical": (lambda t: D.Categorical(t(_PK)), np.array([0, 1])),
    "Cauchy": (lambda t: D.Cauchy(t(_Z), t(_POS)), _Z),
    "Chisquare": (lambda t: D.Chisquare(t(_POS)), _POS),
    "Dirichlet": (lambda t: D.Dirichlet(t(_PK + 1)), _PK),
    "Exponential": (lambda t: D.Exponential(t(_POS)), _POS),
    "Gamma": (lambda t: D.Gamma(t(_POS), t(_POS)), _POS),
    "Geometric": (lambda t: D.Geometric(t(_P)), np.array([1, 3], _F)),
    "Gumbel": (lambda t: D.Gumbel(t(_Z), t(_POS)), _Z),
    "Independent": (lambda t: D.Independent(D.Normal(t(_Z), t(_POS)), 1), _Z),
    "Laplace": (lambda t: D.Laplace(t(_Z), t(_POS)), _Z),
    "LogNormal": (lambda t: D.LogNormal(t(_Z), t(_POS)), _POS),
    "MultivariateNormal": (
        lambda t: D.MultivariateNormal(t(np.zeros((2, 2), _F)), scale_tril=t(_L)),
        np.ones((2, 2), _F),
    ),
    "Normal": (lambda t: D.Normal(t(_Z), t(_POS)), _Z),
    "OneHotCategorical": (
        lambda t: D.OneHotCategorical(t(_PK)),
        np.eye(2, dtype=_F),
    ),
    "Pareto": (lambda t: D.Pareto(t(_POS), t(_POS)), _POS * 2),
    "Poisson": (lambda t: D.Poisson(t(_POS)), np.array([1, 2], _F)),
    "Uniform": (lambda t: D.Uniform(t(_Z), t(_POS)), _Z + 0.05),
}


@pytest.mark.parametrize("name", sorted(FLOAT32_CASES))
def test_float32_is_kept_and_kl_is_registered(name, device):
    """Every distribution on every device: dtypes, shapes and KL(d, d) == 0."""
    dev = kusari.get_device(device)
    make, x = FLOAT32_CASES[name]
    d = make(dev.send)
    x = dev.send(x)
    assert d.xp is dev.xp
    assert d.log_prob(x).dtype == np.float32
    assert d.log_prob(x).shape == d.batch_shape
    if name != "Poisson":
        assert d.entropy.dtype == np.float32
        assert d.entropy.shape == d.batch_shape
    if name not in ("Cauchy", "Chisquare"):  # no KL registered (as Chainer)
        kl = kl_divergence(d, make(dev.send))
        assert kl.dtype == np.float32
        np.testing.assert_allclose(kusari.backends.cuda.to_cpu(kl.array), 0, atol=1e-5)
    if name not in ("Categorical", "Cauchy"):
        assert d.mean.dtype == np.float32
        assert d.variance.dtype == np.float32
    s = d.sample(3)
    assert s.shape == (3,) + d.batch_shape + d.event_shape
    assert s.dtype == (np.int32 if name == "Categorical" else np.float32)
