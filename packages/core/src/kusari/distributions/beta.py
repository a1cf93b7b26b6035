"""Beta distribution."""

from __future__ import annotations

from typing import Any

import kusari.functions as F
from kusari import distribution
from kusari.distributions import utils
from kusari.variable import Variable


class Beta(distribution.Distribution):
    """Beta distribution with density :math:`x^{a-1}(1-x)^{b-1}/B(a,b)`.

    Args:
        a: First shape parameter :math:`a > 0`.
        b: Second shape parameter :math:`b > 0`.

    Example:
        >>> import numpy as np
        >>> from kusari import distributions as D
        >>> D.Beta(np.array([2.], np.float32), np.array([2.], np.float32)).mean.array
        array([0.5], dtype=float32)
    """

    def __init__(self, a: Any, b: Any) -> None:
        self.a = utils.param(a, "a", "Beta")
        self.b = utils.param(b, "b", "Beta")

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.a.shape)

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {"a": self.a, "b": self.b}

    def log_prob(self, x: Any) -> Variable:
        x = utils.as_data(x, self.a.dtype)
        xa = x.array
        ok = (xa >= 0) & (xa <= 1)
        x = utils.in_support(x, ok, 0.5)
        y = (
            (self.a - 1.0) * F.log(x)
            + (self.b - 1.0) * F.log1p(-x)
            - utils.lbeta(self.a, self.b)
        )
        return utils.where(ok, y, -float("inf"), y.dtype)

    @property
    def entropy(self) -> Variable:
        a, b = self.a, self.b
        return (
            utils.lbeta(a, b)
            - (a - 1.0) * F.digamma(a)
            - (b - 1.0) * F.digamma(b)
            + (a + b - 2.0) * F.digamma(a + b)
        )

    @property
    def mean(self) -> Variable:
        return self.a / (self.a + self.b)

    @property
    def variance(self) -> Variable:
        s = self.a + self.b
        return self.a * self.b / (s * s * (s + 1.0))

    @property
    def support(self) -> str:
        return "[0, 1]"

    def sample_n(self, n: int) -> Variable:
        xp = self.xp
        shape = (n,) + self.batch_shape
        eps = xp.random.beta(
            xp.broadcast_to(self.a.array, shape), xp.broadcast_to(self.b.array, shape)
        )
        return Variable(eps.astype(self.a.dtype))


@distribution.register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Variable:
    s = p.a + p.b
    return (
        utils.lbeta(q.a, q.b)
        - utils.lbeta(p.a, p.b)
        + (p.a - q.a) * F.digamma(p.a)
        + (p.b - q.b) * F.digamma(p.b)
        + (q.a - p.a + q.b - p.b) * F.digamma(s)
    )
