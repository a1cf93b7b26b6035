"""Pareto distribution."""

from __future__ import annotations

from typing import Any

import kusari.functions as F
from kusari import distribution
from kusari.distributions import utils
from kusari.variable import Variable


class Pareto(distribution.Distribution):
    """Pareto distribution with density :math:`\\alpha x_m^\\alpha / x^{\\alpha+1}`
    for :math:`x \\ge x_m`.

    Args:
        scale: Scale :math:`x_m > 0`.
        alpha: Shape :math:`\\alpha > 0`.

    Example:
        >>> import numpy as np
        >>> from kusari import distributions as D
        >>> D.Pareto(np.ones(1, np.float32), np.array([3.], np.float32)).mean.array
        array([1.5], dtype=float32)
    """

    def __init__(self, scale: Any, alpha: Any) -> None:
        self.scale = utils.param(scale, "scale", "Pareto")
        self.alpha = utils.param(alpha, "alpha", "Pareto")

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.scale.shape)

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {"scale": self.scale, "alpha": self.alpha}

    def log_prob(self, x: Any) -> Variable:
        x = utils.as_data(x, self.scale.dtype)
        ok = x.array >= self.scale.array
        x = utils.in_support(x, ok, 1.0)
        y = (
            F.log(self.alpha)
            + self.alpha * F.log(self.scale)
            - (self.alpha + 1.0) * F.log(x)
        )
        return utils.where(ok, y, -float("inf"), y.dtype)

    def cdf(self, x: Any) -> Variable:
        x = utils.as_data(x, self.scale.dtype)
        ok = x.array >= self.scale.array
        x = utils.in_support(x, ok, 1.0)
        y = 1.0 - F.exp(self.alpha * (F.log(self.scale) - F.log(x)))
        return utils.where(ok, y, 0.0, y.dtype)

    def icdf(self, x: Any) -> Variable:
        x = utils.as_data(x, self.scale.dtype)
        return self.scale * F.exp(-F.log1p(-x) / self.alpha)

    @property
    def entropy(self) -> Variable:
        return F.log(self.scale) - F.log(self.alpha) + 1.0 / self.alpha + 1.0

    @property
    def mean(self) -> Variable:
        y = self.alpha * self.scale / (self.alpha - 1.0)
        return utils.where(self.alpha.array > 1, y, float("inf"), y.dtype)

    @property
    def variance(self) -> Variable:
        a = self.alpha
        y = self.scale * self.scale * a / ((a - 1.0) * (a - 1.0) * (a - 2.0))
        return utils.where(a.array > 2, y, float("inf"), y.dtype)

    @property
    def mode(self) -> Variable:
        return self.scale

    @property
    def support(self) -> str:
        return "[scale, inf]"

    def sample_n(self, n: int) -> Variable:
        xp = self.xp
        u = xp.random.uniform(size=(n,) + self.batch_shape).astype(self.scale.dtype)
        return self.scale * F.exp(-F.log1p(-u) / self.alpha)


@distribution.register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p: Pareto, q: Pareto) -> Variable:
    y = (
        F.log(p.alpha)
        - F.log(q.alpha)
        + q.alpha * (F.log(p.scale) - F.log(q.scale))
        + q.alpha / p.alpha
        - 1.0
    )
    ok = p.scale.array >= q.scale.array
    return utils.where(ok, y, float("inf"), y.dtype)
