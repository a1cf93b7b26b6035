"""Cauchy distribution."""

from __future__ import annotations

import math
import warnings
from typing import Any

import kusari.functions as F
from kusari import distribution
from kusari.distributions import utils
from kusari.variable import Variable


class Cauchy(distribution.Distribution):
    """Cauchy distribution with density
    :math:`1 / (\\pi\\gamma (1 + ((x-x_0)/\\gamma)^2))`.

    Args:
        loc: Location :math:`x_0`.
        scale: Scale :math:`\\gamma > 0`.

    Example:
        >>> import numpy as np
        >>> from kusari import distributions as D
        >>> d = D.Cauchy(np.zeros(1, np.float32), np.ones(1, np.float32))
        >>> d.cdf(np.zeros(1, np.float32)).array
        array([0.5], dtype=float32)
    """

    def __init__(self, loc: Any, scale: Any) -> None:
        self.loc = utils.param(loc, "loc", "Cauchy")
        self.scale = utils.param(scale, "scale", "Cauchy")

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
        return -math.log(math.pi) - F.log(self.scale) - F.log1p(z * z)

    def cdf(self, x: Any) -> Variable:
        return 0.5 + F.arctan(self._z(x)) / math.pi

    def icdf(self, x: Any) -> Variable:
        x = utils.as_data(x, self.loc.dtype)
        return self.loc + self.scale * F.tan(math.pi * (x - 0.5))

    @property
    def entropy(self) -> Variable:
        return F.log(4.0 * math.pi * self.scale)

    def _undefined(self, what: str) -> Variable:
        warnings.warn(
            f"{what} of the Cauchy distribution is undefined.",
            RuntimeWarning,
            stacklevel=3,
        )
        xp = self.xp
        return Variable(xp.full(self.batch_shape, xp.nan, dtype=self.loc.dtype))

    @property
    def mean(self) -> Variable:
        return self._undefined("Mean")

    @property
    def variance(self) -> Variable:
        return self._undefined("Variance")

    @property
    def mode(self) -> Variable:
        return self.loc

    @property
    def support(self) -> str:
        return "real"

    def sample_n(self, n: int) -> Variable:
        xp = self.xp
        eps = xp.random.standard_cauchy((n,) + self.batch_shape).astype(self.loc.dtype)
        return self.loc + self.scale * eps
