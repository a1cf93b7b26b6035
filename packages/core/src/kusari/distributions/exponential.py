"""Exponential distribution."""

from __future__ import annotations

from typing import Any

import kusari.functions as F
from kusari import distribution
from kusari.distributions import utils
from kusari.variable import Variable


class Exponential(distribution.Distribution):
    """Exponential distribution with density :math:`\\lambda e^{-\\lambda x}`.

    Args:
        lam: Rate :math:`\\lambda > 0`.

    Example:
        >>> import numpy as np
        >>> from kusari import distributions as D
        >>> D.Exponential(np.array([2.], np.float32)).mean.array
        array([0.5], dtype=float32)
    """

    def __init__(self, lam: Any) -> None:
        self.lam = utils.param(lam, "lam", "Exponential")

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.lam.shape)

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {"lam": self.lam}

    def log_prob(self, x: Any) -> Variable:
        x = utils.as_data(x, self.lam.dtype)
        y = F.log(self.lam) - self.lam * x
        return utils.where(x.array >= 0, y, -float("inf"), y.dtype)

    def cdf(self, x: Any) -> Variable:
        x = utils.as_data(x, self.lam.dtype)
        y = -F.expm1(-self.lam * x)
        return utils.where(x.array >= 0, y, 0.0, y.dtype)

    def survival_function(self, x: Any) -> Variable:
        x = utils.as_data(x, self.lam.dtype)
        y = F.exp(-self.lam * x)
        return utils.where(x.array >= 0, y, 1.0, y.dtype)

    def log_survival_function(self, x: Any) -> Variable:
        x = utils.as_data(x, self.lam.dtype)
        y = -self.lam * x
        return utils.where(x.array >= 0, y, 0.0, y.dtype)

    def icdf(self, x: Any) -> Variable:
        x = utils.as_data(x, self.lam.dtype)
        return -F.log1p(-x) / self.lam

    @property
    def entropy(self) -> Variable:
        return 1.0 - F.log(self.lam)

    @property
    def mean(self) -> Variable:
        return 1.0 / self.lam

    @property
    def variance(self) -> Variable:
        return 1.0 / (self.lam * self.lam)

    @property
    def mode(self) -> Variable:
        return Variable(self.xp.zeros(self.batch_shape, self.lam.dtype))

    @property
    def support(self) -> str:
        return "positive"

    def sample_n(self, n: int) -> Variable:
        xp = self.xp
        eps = xp.random.standard_exponential((n,) + self.batch_shape).astype(
            self.lam.dtype
        )
        return eps / self.lam


@distribution.register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Variable:
    return F.log(p.lam) - F.log(q.lam) + q.lam / p.lam - 1.0
