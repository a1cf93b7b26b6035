"""Uniform distribution."""

from __future__ import annotations

from typing import Any

import kusari.functions as F
from kusari import distribution
from kusari.distributions import utils
from kusari.variable import Variable


class Uniform(distribution.Distribution):
    """Continuous uniform distribution on ``[low, high]``.

    Give either ``low`` and ``high``, or ``loc`` and ``scale``
    (``low = loc``, ``high = loc + scale``).

    Args:
        low: Lower bound.
        high: Upper bound.
        loc: Lower bound (alternative parameterisation).
        scale: Width ``high - low`` (alternative parameterisation).

    Example:
        >>> import numpy as np
        >>> from kusari import distributions as D
        >>> d = D.Uniform(low=np.zeros(1, np.float32), high=np.full(1, 4, np.float32))
        >>> d.mean.array
        array([2.], dtype=float32)
    """

    def __init__(
        self, low: Any = None, high: Any = None, loc: Any = None, scale: Any = None
    ) -> None:
        by_bounds = low is not None or high is not None
        by_loc = loc is not None or scale is not None
        if by_bounds == by_loc:
            raise ValueError("Uniform: give either (low, high) or (loc, scale)")
        if by_bounds:
            if low is None or high is None:
                raise ValueError("Uniform: both low and high must have a value")
            self.low = utils.param(low, "low", "Uniform")
            self.high = utils.param(high, "high", "Uniform")
            self.loc = self.low
            self.scale = self.high - self.low
        else:
            if loc is None or scale is None:
                raise ValueError("Uniform: both loc and scale must have a value")
            self.loc = utils.param(loc, "loc", "Uniform")
            self.scale = utils.param(scale, "scale", "Uniform")
            self.low = self.loc
            self.high = self.loc + self.scale

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.low.shape)

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {"low": self.low, "high": self.high}

    def _inside(self, x: Variable) -> Any:
        xa = x.array
        return (xa >= self.low.array) & (xa <= self.high.array)

    def log_prob(self, x: Any) -> Variable:
        x = utils.as_data(x, self.low.dtype)
        y = -F.log(self.scale)
        return utils.where(self._inside(x), y, -float("inf"), y.dtype)

    def cdf(self, x: Any) -> Variable:
        x = utils.as_data(x, self.low.dtype)
        y = (x - self.low) / self.scale
        xa = x.array
        y = utils.where(xa < self.low.array, 0.0, y, y.dtype)
        return utils.where(xa > self.high.array, 1.0, y, y.dtype)

    def icdf(self, x: Any) -> Variable:
        x = utils.as_data(x, self.low.dtype)
        return self.low + self.scale * x

    @property
    def entropy(self) -> Variable:
        return F.log(self.scale)

    @property
    def mean(self) -> Variable:
        return self.low + 0.5 * self.scale

    @property
    def variance(self) -> Variable:
        return self.scale * self.scale / 12.0

    @property
    def support(self) -> str:
        return "[low, high]"

    def sample_n(self, n: int) -> Variable:
        xp = self.xp
        u = xp.random.uniform(size=(n,) + self.batch_shape).astype(self.low.dtype)
        return self.low + self.scale * u


@distribution.register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Variable:
    y = F.log(q.scale) - F.log(p.scale)
    ok = (q.low.array <= p.low.array) & (p.high.array <= q.high.array)
    return utils.where(ok, y, float("inf"), y.dtype)
