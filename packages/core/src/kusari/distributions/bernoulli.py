"""Bernoulli distribution."""

from __future__ import annotations

from typing import Any

import numpy

import kusari.functions as F
from kusari import distribution
from kusari.distributions import utils
from kusari.variable import Variable


class Bernoulli(distribution.Distribution):
    """Bernoulli distribution: ``P(x=1) = p``, ``P(x=0) = 1 - p``.

    Args:
        p: Probability of 1. Either ``p`` or ``logit`` (not both) must be given.
        logit: :math:`\\log\\{p/(1-p)\\}`.
        binary_check: If True, :meth:`log_prob` gives ``-inf`` for values
            other than 0 and 1.

    Example:
        >>> import numpy as np
        >>> from kusari import distributions as D
        >>> d = D.Bernoulli(np.array([0.25], np.float32))
        >>> float(d.prob(np.array([1.], np.float32)).array[0])
        0.25
    """

    def __init__(
        self, p: Any = None, logit: Any = None, binary_check: bool = False
    ) -> None:
        name, value = utils.one_of("Bernoulli", p=p, logit=logit)
        self._given = name
        if name == "p":
            self.p = utils.param(value, "p", "Bernoulli")
            with numpy.errstate(divide="ignore"):
                self.logit = F.log(self.p) - F.log1p(-self.p)
        else:
            self.logit = utils.param(value, "logit", "Bernoulli")
            self.p = F.sigmoid(self.logit)
        self.binary_check = binary_check

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.p.shape)

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {self._given: self.p if self._given == "p" else self.logit}

    @property
    def _log_p(self) -> Variable:
        return -F.softplus(-self.logit)

    @property
    def _log_1mp(self) -> Variable:
        return -F.softplus(self.logit)

    def log_prob(self, x: Any) -> Variable:
        x = utils.as_data(x, self.p.dtype)
        y = utils.xlogy(x, self._log_p) + utils.xlogy(1.0 - x, self._log_1mp)
        if self.binary_check:
            xa = x.array
            ok = (xa == 0) | (xa == 1)
            y = utils.where(ok, y, -float("inf"), y.dtype)
        return y

    @property
    def entropy(self) -> Variable:
        p = self.p
        return -(utils.xlogy(p, self._log_p) + utils.xlogy(1.0 - p, self._log_1mp))

    @property
    def mean(self) -> Variable:
        return self.p

    @property
    def variance(self) -> Variable:
        return self.p * (1.0 - self.p)

    @property
    def support(self) -> str:
        return "{0, 1}"

    def sample_n(self, n: int) -> Variable:
        xp = self.xp
        eps = xp.random.binomial(1, self.p.array, size=(n,) + self.batch_shape)
        return Variable(eps.astype(self.p.dtype))


@distribution.register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Variable:
    return utils.xlogy(p.p, p._log_p - q._log_p) + utils.xlogy(
        1.0 - p.p, p._log_1mp - q._log_1mp
    )


def _bernoulli_log_prob(logit: Any, x: Any, binary_check: bool = False) -> Variable:
    """Log-probability of ``x`` under a Bernoulli of log-odds ``logit``.

    The module-level helper Chainer 7 exposes (its tests and some user code
    call it directly); differentiable, twice, with respect to ``logit``.

    Args:
        logit: Log-odds :math:`\\log\\{p/(1-p)\\}` (array or Variable).
        x: Observed values (0 or 1; other values with ``binary_check`` give
            ``-inf``).
        binary_check: See :class:`Bernoulli`.

    Returns:
        The elementwise log-probability, in ``logit``'s dtype.
    """
    return Bernoulli(logit=logit, binary_check=binary_check).log_prob(x)
