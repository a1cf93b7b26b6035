"""Geometric distribution."""

from __future__ import annotations

from typing import Any

import kusari.functions as F
from kusari import distribution
from kusari.distributions import utils
from kusari.variable import Variable


class Geometric(distribution.Distribution):
    """Geometric distribution on ``{1, 2, ...}``: :math:`P(x) = p(1-p)^{x-1}`.

    Args:
        p: Success probability :math:`0 < p \\le 1`.

    Example:
        >>> import numpy as np
        >>> from kusari import distributions as D
        >>> D.Geometric(np.array([0.5], np.float32)).mean.array
        array([2.], dtype=float32)
    """

    def __init__(self, p: Any) -> None:
        self.p = utils.param(p, "p", "Geometric")

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.p.shape)

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {"p": self.p}

    def log_prob(self, x: Any) -> Variable:
        x = utils.as_data(x, self.p.dtype)
        y = utils.xlogy(x - 1.0, F.log1p(-self.p)) + F.log(self.p)
        xa = x.array
        ok = (xa >= 1) & (xa == self.xp.floor(xa))
        return utils.where(ok, y, -float("inf"), y.dtype)

    @property
    def entropy(self) -> Variable:
        p = self.p
        return -(utils.xlogy(1.0 - p, F.log1p(-p)) + p * F.log(p)) / p

    @property
    def mean(self) -> Variable:
        return 1.0 / self.p

    @property
    def variance(self) -> Variable:
        return (1.0 - self.p) / (self.p * self.p)

    @property
    def support(self) -> str:
        return "positive integer"

    def sample_n(self, n: int) -> Variable:
        xp = self.xp
        shape = (n,) + self.batch_shape
        eps = xp.random.geometric(xp.broadcast_to(self.p.array, shape))
        return Variable(eps.astype(self.p.dtype))


@distribution.register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric) -> Variable:
    return (
        F.log(p.p)
        - F.log(q.p)
        + utils.xlogy(1.0 - p.p, F.log1p(-p.p) - F.log1p(-q.p)) / p.p
    )
