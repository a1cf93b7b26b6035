"""Dirichlet distribution."""

from __future__ import annotations

from typing import Any

import kusari.functions as F
from kusari import distribution
from kusari.distributions import utils
from kusari.variable import Variable


def _log_norm(alpha: Variable) -> Variable:
    """log of the multivariate beta function over the last axis."""
    return F.sum(F.lgamma(alpha), axis=-1) - F.lgamma(F.sum(alpha, axis=-1))


class Dirichlet(distribution.Distribution):
    """Dirichlet distribution over the simplex of dimension ``K``.

    Args:
        alpha: Concentrations, shape ``batch_shape + (K,)``, all > 0.

    Example:
        >>> import numpy as np
        >>> from kusari import distributions as D
        >>> D.Dirichlet(np.array([1., 3.], np.float32)).mean.array
        array([0.25, 0.75], dtype=float32)
    """

    def __init__(self, alpha: Any) -> None:
        self.alpha = utils.param(alpha, "alpha", "Dirichlet")
        if self.alpha.ndim < 1:
            raise ValueError("Dirichlet: alpha must have at least one axis")
        self.alpha0 = F.sum(self.alpha, axis=-1)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.alpha.shape[:-1])

    @property
    def event_shape(self) -> tuple[int, ...]:
        return tuple(self.alpha.shape[-1:])

    @property
    def params(self) -> dict[str, Variable]:
        return {"alpha": self.alpha}

    def log_prob(self, x: Any) -> Variable:
        x = utils.as_data(x, self.alpha.dtype)
        return F.sum(utils.xlogy(self.alpha - 1.0, F.log(x)), axis=-1) - _log_norm(
            self.alpha
        )

    @property
    def entropy(self) -> Variable:
        k = float(self.alpha.shape[-1])
        return (
            _log_norm(self.alpha)
            + (self.alpha0 - k) * F.digamma(self.alpha0)
            - F.sum((self.alpha - 1.0) * F.digamma(self.alpha), axis=-1)
        )

    @property
    def mean(self) -> Variable:
        return self.alpha / F.expand_dims(self.alpha0, -1)

    @property
    def variance(self) -> Variable:
        a0 = F.expand_dims(self.alpha0, -1)
        return self.alpha * (a0 - self.alpha) / (a0 * a0 * (a0 + 1.0))

    @property
    def support(self) -> str:
        return "[0, 1]"

    def sample_n(self, n: int) -> Variable:
        xp = self.xp
        shape = (n,) + tuple(self.alpha.shape)
        g = xp.random.gamma(xp.broadcast_to(self.alpha.array, shape))
        g = g / g.sum(axis=-1, keepdims=True)
        return Variable(g.astype(self.alpha.dtype))


@distribution.register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Variable:
    dig = F.digamma(p.alpha) - F.expand_dims(F.digamma(p.alpha0), -1)
    return (
        _log_norm(q.alpha)
        - _log_norm(p.alpha)
        + F.sum((p.alpha - q.alpha) * dig, axis=-1)
    )
