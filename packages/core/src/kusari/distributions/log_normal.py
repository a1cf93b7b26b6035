"""Log-normal distribution."""

from __future__ import annotations

from typing import Any

import kusari.functions as F
from kusari import distribution
from kusari.distributions import utils
from kusari.variable import Variable


class LogNormal(distribution.Distribution):
    """Log-normal distribution: ``log x ~ N(mu, sigma**2)``.

    Args:
        mu: Mean of ``log x``.
        sigma: Standard deviation of ``log x`` (> 0).

    Example:
        >>> import numpy as np
        >>> from kusari import distributions as D
        >>> D.LogNormal(np.zeros(1, np.float32), np.ones(1, np.float32)).sample(4).shape
        (4, 1)
    """

    def __init__(self, mu: Any, sigma: Any) -> None:
        self.mu = utils.param(mu, "mu", "LogNormal")
        self.sigma = utils.param(sigma, "sigma", "LogNormal")
        self.log_sigma = F.log(self.sigma)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.mu.shape)

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {"mu": self.mu, "sigma": self.sigma}

    def log_prob(self, x: Any) -> Variable:
        x = utils.as_data(x, self.mu.dtype)
        ok = x.array > 0
        logx = F.log(utils.in_support(x, ok, 1.0))
        z = (logx - self.mu) / self.sigma
        y = -logx - self.log_sigma - 0.5 * utils.LOG_2PI - 0.5 * z * z
        return utils.where(ok, y, -float("inf"), y.dtype)

    def cdf(self, x: Any) -> Variable:
        x = utils.as_data(x, self.mu.dtype)
        return F.ndtr((F.log(x) - self.mu) / self.sigma)

    def icdf(self, x: Any) -> Variable:
        x = utils.as_data(x, self.mu.dtype)
        return F.exp(self.mu + self.sigma * F.ndtri(x))

    @property
    def entropy(self) -> Variable:
        return self.log_sigma + self.mu + 0.5 + 0.5 * utils.LOG_2PI

    @property
    def mean(self) -> Variable:
        return F.exp(self.mu + 0.5 * self.sigma * self.sigma)

    @property
    def variance(self) -> Variable:
        s2 = self.sigma * self.sigma
        return F.expm1(s2) * F.exp(2.0 * self.mu + s2)

    @property
    def mode(self) -> Variable:
        return F.exp(self.mu - self.sigma * self.sigma)

    @property
    def support(self) -> str:
        return "positive"

    def sample_n(self, n: int) -> Variable:
        xp = self.xp
        eps = xp.random.standard_normal((n,) + self.batch_shape).astype(self.mu.dtype)
        return F.exp(self.mu + self.sigma * eps)


@distribution.register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p: LogNormal, q: LogNormal) -> Variable:
    d = p.mu - q.mu
    return (
        q.log_sigma
        - p.log_sigma
        + (p.sigma * p.sigma + d * d) / (2.0 * q.sigma * q.sigma)
        - 0.5
    )
