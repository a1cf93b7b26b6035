"""Normal (Gaussian) distribution."""

from __future__ import annotations

from typing import Any

import numpy

import kusari.functions as F
from kusari import distribution
from kusari.distributions import utils
from kusari.variable import Variable

_HALF_LOG_2PI_E = 0.5 * float(numpy.log(2 * numpy.pi * numpy.e))


class Normal(distribution.Distribution):
    """Normal distribution ``N(loc, scale**2)``.

    Args:
        loc: Mean :math:`\\mu` (Variable or array).
        scale: Standard deviation :math:`\\sigma`. Either ``scale`` or
            ``log_scale`` (not both) must be given.
        log_scale: :math:`\\log\\sigma`.

    Example:
        >>> import numpy as np
        >>> from kusari import distributions as D
        >>> d = D.Normal(np.zeros(3, np.float32), np.ones(3, np.float32))
        >>> d.sample((5,)).shape
        (5, 3)
    """

    def __init__(self, loc: Any, scale: Any = None, log_scale: Any = None) -> None:
        self.loc = utils.param(loc, "loc", "Normal")
        name, value = utils.one_of("Normal", scale=scale, log_scale=log_scale)
        if name == "scale":
            self.scale = utils.param(value, "scale", "Normal")
            self.log_scale = F.log(self.scale)
        else:
            self.log_scale = utils.param(value, "log_scale", "Normal")
            self.scale = F.exp(self.log_scale)

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
        return -self.log_scale - 0.5 * utils.LOG_2PI - 0.5 * z * z

    def prob(self, x: Any) -> Variable:
        return F.exp(self.log_prob(x))

    def cdf(self, x: Any) -> Variable:
        return F.ndtr(self._z(x))

    def log_cdf(self, x: Any) -> Variable:
        return F.log_ndtr(self._z(x))

    def survival_function(self, x: Any) -> Variable:
        return F.ndtr(-self._z(x))

    def log_survival_function(self, x: Any) -> Variable:
        return F.log_ndtr(-self._z(x))

    def icdf(self, x: Any) -> Variable:
        return self.loc + self.scale * F.ndtri(utils.as_data(x, self.loc.dtype))

    @property
    def entropy(self) -> Variable:
        return self.log_scale + _HALF_LOG_2PI_E

    @property
    def mean(self) -> Variable:
        return self.loc

    @property
    def mode(self) -> Variable:
        return self.loc

    @property
    def variance(self) -> Variable:
        return self.scale * self.scale

    @property
    def stddev(self) -> Variable:
        return self.scale

    @property
    def support(self) -> str:
        return "real"

    def sample_n(self, n: int) -> Variable:
        xp = self.xp
        eps = xp.random.standard_normal((n,) + self.batch_shape).astype(self.loc.dtype)
        return self.loc + self.scale * eps


@distribution.register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Variable:
    diff = p.loc - q.loc
    return (
        q.log_scale
        - p.log_scale
        + (p.variance + diff * diff) / (2.0 * q.variance)
        - 0.5
    )
