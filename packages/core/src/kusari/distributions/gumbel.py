"""Gumbel distribution."""

from __future__ import annotations

import math
from typing import Any

import kusari.functions as F
from kusari import distribution
from kusari.distributions import utils
from kusari.variable import Variable


class Gumbel(distribution.Distribution):
    """Gumbel (type-I extreme value) distribution.

    The density is :math:`\\exp(-(z + e^{-z}))/\\beta` with
    :math:`z = (x - \\mu)/\\beta`.

    Args:
        loc: Location :math:`\\mu`.
        scale: Scale :math:`\\beta > 0`.

    Example:
        >>> import numpy as np
        >>> from kusari import distributions as D
        >>> d = D.Gumbel(np.zeros(1, np.float32), np.ones(1, np.float32))
        >>> d.sample((3,)).shape
        (3, 1)
    """

    def __init__(self, loc: Any, scale: Any) -> None:
        self.loc = utils.param(loc, "loc", "Gumbel")
        self.scale = utils.param(scale, "scale", "Gumbel")

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.loc.shape)

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {"loc": self.loc, "scale": self.scale}

    def _z(self, x: Any) -> Variable:
        return (utils.as_data(x, self.loc.dtype) - self.loc) / self.scale

    def log_prob(self, x: Any) -> Variable:
        z = self._z(x)
        return -F.log(self.scale) - z - F.exp(-z)

    def cdf(self, x: Any) -> Variable:
        return F.exp(-F.exp(-self._z(x)))

    def log_cdf(self, x: Any) -> Variable:
        return -F.exp(-self._z(x))

    def icdf(self, x: Any) -> Variable:
        x = utils.as_data(x, self.loc.dtype)
        return self.loc - self.scale * F.log(-F.log(x))

    @property
    def entropy(self) -> Variable:
        return F.log(self.scale) + (utils.EULER + 1.0)

    @property
    def mean(self) -> Variable:
        return self.loc + utils.EULER * self.scale

    @property
    def mode(self) -> Variable:
        return self.loc

    @property
    def variance(self) -> Variable:
        return (math.pi * math.pi / 6.0) * self.scale * self.scale

    @property
    def support(self) -> str:
        return "real"

    def sample_n(self, n: int) -> Variable:
        xp = self.xp
        eps = xp.random.gumbel(size=(n,) + self.batch_shape).astype(self.loc.dtype)
        return self.loc + self.scale * eps


@distribution.register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p: Gumbel, q: Gumbel) -> Variable:
    r = p.scale / q.scale
    return (
        F.log(q.scale)
        - F.log(p.scale)
        - (utils.EULER + 1.0)
        + (p.loc - q.loc + utils.EULER * p.scale) / q.scale
        + F.exp((q.loc - p.loc) / q.scale + F.lgamma(r + 1.0))
    )
