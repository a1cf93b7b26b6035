"""Shared checks for the distribution tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from kusari import gradient_check
from kusari.distribution import Distribution, kl_divergence
from kusari.variable import Variable


def arr(x: Any) -> np.ndarray:
    """The array of a Variable (or the array itself)."""
    return np.asarray(x.array if isinstance(x, Variable) else x)


def close(actual: Any, expected: Any, rtol: float = 1e-6, atol: float = 1e-8) -> None:
    np.testing.assert_allclose(arr(actual), expected, rtol=rtol, atol=atol)


def check_grad(
    fn: Callable[..., Variable],
    *params: np.ndarray,
    atol: float = 1e-5,
    rtol: float = 1e-4,
    eps: float = 1e-4,
) -> None:
    """Gradient check of ``fn(*params)`` (float64) with a random output grad."""
    y = fn(*[Variable(p.copy()) for p in params])
    gy = np.random.default_rng(1).standard_normal(y.shape)
    gradient_check.check_backward(
        fn, params, gy, eps=eps, atol=atol, rtol=rtol, dtype=np.float64
    )


def check_sample_shapes(dist: Distribution) -> None:
    full = dist.batch_shape + dist.event_shape
    assert dist.sample().shape == full
    assert dist.sample(3).shape == (3,) + full
    assert dist.sample((4, 2)).shape == (4, 2) + full
    assert dist.sample_n(5).shape == (5,) + full
    assert isinstance(dist.sample(2), Variable)


def check_sample_moments(dist: Distribution, n: int = 20000, tol: float = 0.05) -> None:
    """Sample mean/variance agree with ``dist.mean`` / ``dist.variance``."""
    s = arr(dist.sample(n)).astype(np.float64)
    mean = arr(dist.mean)
    var = arr(dist.variance)
    np.testing.assert_allclose(s.mean(0), mean, rtol=tol, atol=tol * np.sqrt(var).max())
    np.testing.assert_allclose(s.var(0), var, rtol=3 * tol, atol=tol * var.max())


def check_kl_monte_carlo(
    p: Distribution, q: Distribution, n: int = 50000, tol: float = 0.03
) -> None:
    """Registered KL against the Monte Carlo estimate E_p[log p - log q]."""
    s = p.sample(n)
    mc = arr(p.log_prob(s) - q.log_prob(s)).mean(0)
    kl = arr(kl_divergence(p, q))
    assert kl.shape == p.batch_shape
    np.testing.assert_allclose(kl, mc, rtol=tol, atol=tol)
