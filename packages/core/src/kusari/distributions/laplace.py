"""Laplace distribution."""

from __future__ import annotations

import math
from typing import Any

import kusari.functions as F
from kusari import distribution
from kusari.distributions import utils
from kusari.variable import Variable


def _laplace_cdf(x: Any) -> Variable:
    """CDF of the standard Laplace distribution (``loc=0``, ``scale=1``)."""
    x = utils.as_data(x, None)
    return 0.5 - 0.5 * F.sign(x) * F.expm1(-F.absolute(x))


def _laplace_icdf(p: Any) -> Variable:
    """Inverse CDF of the standard Laplace distribution."""
    h = utils.as_data(p, None) - 0.5
    return -F.sign(h) * F.log1p(-2.0 * F.absolute(h))


class Laplace(distribution.Distribution):
    """Laplace distribution with density :math:`e^{-|x-\\mu|/b}/(2b)`.

    Args:
        loc: Location :math:`\\mu`.
        scale: Scale :math:`b > 0`.

    Example:
        >>> import numpy as np
        >>> from kusari import distributions as D
        >>> D.Laplace(np.zeros(1, np.float32), np.ones(1, np.float32)).variance.array
        array([2.], dtype=float32)
    """

    def __init__(self, loc: Any, scale: Any) -> None:
        self.loc = utils.param(loc, "loc", "Laplace")
        self.scale = utils.param(scale, "scale", "Laplace")

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
        return -math.log(2.0) - F.log(self.scale) - F.absolute(self._z(x))

    def cdf(self, x: Any) -> Variable:
        return _laplace_cdf(self._z(x))

    def icdf(self, x: Any) -> Variable:
        return self.loc + self.scale * _laplace_icdf(utils.as_data(x, self.loc.dtype))

    @property
    def entropy(self) -> Variable:
        return 1.0 + math.log(2.0) + F.log(self.scale)

    @property
    def mean(self) -> Variable:
        return self.loc

    @property
    def mode(self) -> Variable:
        return self.loc

    @property
    def variance(self) -> Variable:
        return 2.0 * self.scale * self.scale

    @property
    def stddev(self) -> Variable:
        return math.sqrt(2.0) * self.scale

    @property
    def support(self) -> str:
        return "real"

    def sample_n(self, n: int) -> Variable:
        xp = self.xp
        eps = xp.random.laplace(size=(n,) + self.batch_shape).astype(self.loc.dtype)
        return self.loc + self.scale * eps


@distribution.register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Variable:
    d = F.absolute(p.loc - q.loc)
    return (
        F.log(q.scale)
        - F.log(p.scale)
        + d / q.scale
        + p.scale / q.scale * F.exp(-d / p.scale)
        - 1.0
    )
