"""Chi-square distribution."""

from __future__ import annotations

import math
from typing import Any

import kusari.functions as F
from kusari import distribution
from kusari.distributions import utils
from kusari.variable import Variable


class Chisquare(distribution.Distribution):
    """Chi-square distribution with ``k`` degrees of freedom.

    Args:
        k: Degrees of freedom :math:`k > 0`.

    Example:
        >>> import numpy as np
        >>> from kusari import distributions as D
        >>> D.Chisquare(np.array([3.], np.float32)).variance.array
        array([6.], dtype=float32)
    """

    def __init__(self, k: Any) -> None:
        self.k = utils.param(k, "k", "Chisquare")

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.k.shape)

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {"k": self.k}

    def log_prob(self, x: Any) -> Variable:
        x = utils.as_data(x, self.k.dtype)
        ok = x.array >= 0
        x = utils.in_support(x, ok, 1.0)
        h = 0.5 * self.k
        y = -F.lgamma(h) - h * math.log(2.0) + (h - 1.0) * F.log(x) - 0.5 * x
        return utils.where(ok, y, -float("inf"), y.dtype)

    @property
    def entropy(self) -> Variable:
        h = 0.5 * self.k
        return h + math.log(2.0) + F.lgamma(h) + (1.0 - h) * F.digamma(h)

    @property
    def mean(self) -> Variable:
        return self.k

    @property
    def variance(self) -> Variable:
        return 2.0 * self.k

    @property
    def support(self) -> str:
        return "positive"

    def sample_n(self, n: int) -> Variable:
        xp = self.xp
        shape = (n,) + self.batch_shape
        eps = xp.random.chisquare(xp.broadcast_to(self.k.array, shape))
        return Variable(eps.astype(self.k.dtype))
