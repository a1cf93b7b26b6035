"""Gamma distribution."""

from __future__ import annotations

from typing import Any

import kusari.functions as F
from kusari import distribution
from kusari.distributions import utils
from kusari.variable import Variable


class Gamma(distribution.Distribution):
    """Gamma distribution with shape ``k`` and scale ``theta``.

    The density is :math:`x^{k-1} e^{-x/\\theta} / (\\Gamma(k)\\theta^k)`.

    Args:
        k: Shape :math:`k > 0`.
        theta: Scale :math:`\\theta > 0`.

    Example:
        >>> import numpy as np
        >>> from kusari import distributions as D
        >>> D.Gamma(np.array([2.], np.float32), np.array([3.], np.float32)).mean.array
        array([6.], dtype=float32)
    """

    def __init__(self, k: Any, theta: Any) -> None:
        self.k = utils.param(k, "k", "Gamma")
        self.theta = utils.param(theta, "theta", "Gamma")

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.k.shape)

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {"k": self.k, "theta": self.theta}

    def log_prob(self, x: Any) -> Variable:
        x = utils.as_data(x, self.k.dtype)
        ok = x.array >= 0
        x = utils.in_support(x, ok, 1.0)
        y = (
            -F.lgamma(self.k)
            - self.k * F.log(self.theta)
            + (self.k - 1.0) * F.log(x)
            - x / self.theta
        )
        return utils.where(ok, y, -float("inf"), y.dtype)

    @property
    def entropy(self) -> Variable:
        k = self.k
        return k + F.log(self.theta) + F.lgamma(k) + (1.0 - k) * F.digamma(k)

    @property
    def mean(self) -> Variable:
        return self.k * self.theta

    @property
    def variance(self) -> Variable:
        return self.k * self.theta * self.theta

    @property
    def support(self) -> str:
        return "positive"

    def sample_n(self, n: int) -> Variable:
        xp = self.xp
        shape = (n,) + self.batch_shape
        eps = xp.random.gamma(
            xp.broadcast_to(self.k.array, shape),
            xp.broadcast_to(self.theta.array, shape),
        )
        return Variable(eps.astype(self.k.dtype))


@distribution.register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Variable:
    return (
        (p.k - q.k) * F.digamma(p.k)
        - F.lgamma(p.k)
        + F.lgamma(q.k)
        + q.k * (F.log(q.theta) - F.log(p.theta))
        + p.k * (p.theta - q.theta) / q.theta
    )
