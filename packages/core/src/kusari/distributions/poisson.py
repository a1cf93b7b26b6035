"""Poisson distribution."""

from __future__ import annotations

from typing import Any

import kusari.functions as F
from kusari import distribution
from kusari.distributions import utils
from kusari.variable import Variable


class Poisson(distribution.Distribution):
    """Poisson distribution: :math:`P(x) = \\lambda^x e^{-\\lambda} / x!`.

    Args:
        lam: Rate :math:`\\lambda > 0`.

    Example:
        >>> import numpy as np
        >>> from kusari import distributions as D
        >>> D.Poisson(np.array([3.], np.float32)).variance.array
        array([3.], dtype=float32)
    """

    def __init__(self, lam: Any) -> None:
        self.lam = utils.param(lam, "lam", "Poisson")

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
        y = utils.xlogy(x, F.log(self.lam)) - self.lam - F.lgamma(x + 1.0)
        xa = x.array
        ok = (xa >= 0) & (xa == self.xp.floor(xa))
        return utils.where(ok, y, -float("inf"), y.dtype)

    @property
    def mean(self) -> Variable:
        return self.lam

    @property
    def variance(self) -> Variable:
        return self.lam

    @property
    def support(self) -> str:
        return "non negative integer"

    def sample_n(self, n: int) -> Variable:
        xp = self.xp
        shape = (n,) + self.batch_shape
        eps = xp.random.poisson(xp.broadcast_to(self.lam.array, shape))
        return Variable(eps.astype(self.lam.dtype))


@distribution.register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Variable:
    return p.lam * (F.log(p.lam) - F.log(q.lam)) - p.lam + q.lam
