"""Independent: reinterpret batch axes of a distribution as event axes."""

from __future__ import annotations

from typing import Any

import numpy

import kusari.functions as F
from kusari import distribution
from kusari.distribution import Distribution
from kusari.variable import Variable


class Independent(Distribution):
    """Treat the rightmost batch axes of ``distribution`` as event axes.

    Args:
        distribution: The base :class:`~kusari.Distribution`.
        reinterpreted_batch_ndims: How many rightmost batch axes become event
            axes. None means all but the first batch axis.

    Example:
        >>> import numpy as np
        >>> from kusari import distributions as D
        >>> base = D.Normal(np.zeros((2, 3), np.float32), np.ones((2, 3), np.float32))
        >>> d = D.Independent(base)
        >>> d.batch_shape, d.event_shape
        ((2,), (3,))
    """

    def __init__(
        self, distribution: Distribution, reinterpreted_batch_ndims: int | None = None
    ) -> None:
        self.distribution = distribution
        nbatch = len(distribution.batch_shape)
        if reinterpreted_batch_ndims is None:
            reinterpreted_batch_ndims = max(nbatch - 1, 0)
        if not 0 <= reinterpreted_batch_ndims <= nbatch:
            raise ValueError(
                "Independent: reinterpreted_batch_ndims must be in "
                f"[0, {nbatch}] (the base batch ndim), got {reinterpreted_batch_ndims}"
            )
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def __repr__(self) -> str:
        return (
            f"Independent({self.distribution!r}, "
            f"reinterpreted_batch_ndims={self.reinterpreted_batch_ndims})"
        )

    @property
    def _axes(self) -> tuple[int, ...]:
        n = self.reinterpreted_batch_ndims
        return tuple(range(-n, 0))

    def _reduce(self, y: Variable) -> Variable:
        if not self.reinterpreted_batch_ndims:
            return y
        return F.sum(y, axis=self._axes)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        shape = self.distribution.batch_shape
        return tuple(shape[: len(shape) - self.reinterpreted_batch_ndims])

    @property
    def event_shape(self) -> tuple[int, ...]:
        shape = self.distribution.batch_shape
        return (
            tuple(shape[len(shape) - self.reinterpreted_batch_ndims :])
            + self.distribution.event_shape
        )

    @property
    def params(self) -> dict[str, Variable]:
        return self.distribution.params

    def log_prob(self, x: Any) -> Variable:
        return self._reduce(self.distribution.log_prob(x))

    def log_cdf(self, x: Any) -> Variable:
        return self._reduce(self.distribution.log_cdf(x))

    def cdf(self, x: Any) -> Variable:
        return F.exp(self.log_cdf(x))

    def icdf(self, x: Any) -> Variable:
        raise RuntimeError(
            "Independent: the cumulative distribution function of a multivariate "
            "variable is not invertible"
        )

    def survival_function(self, x: Any) -> Variable:
        return 1.0 - self.cdf(x)

    @property
    def entropy(self) -> Variable:
        return self._reduce(self.distribution.entropy)

    @property
    def mean(self) -> Variable:
        return self.distribution.mean

    @property
    def mode(self) -> Variable:
        return self.distribution.mode

    @property
    def variance(self) -> Variable:
        return self.distribution.variance

    @property
    def stddev(self) -> Variable:
        return self.distribution.stddev

    @property
    def covariance(self) -> Variable:
        """Diagonal covariance over the flattened event, ``batch_shape + (m, m)``.

        Only for a base distribution with scalar events.
        """
        if self.distribution.event_shape:
            raise NotImplementedError(
                "Independent.covariance: the base distribution must have scalar events"
            )
        m = int(numpy.prod(self.event_shape))
        var = F.reshape(self.distribution.variance, self.batch_shape + (m,))
        eye = self.distribution.xp.eye(m, dtype=var.dtype)
        return F.expand_dims(var, -1) * eye

    @property
    def support(self) -> str:
        return self.distribution.support

    def sample_n(self, n: int) -> Variable:
        return self.distribution.sample_n(n)


@distribution.register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Variable:
    # Batch shapes may differ as long as they broadcast (e.g. a posterior with
    # batch (B,) against a prior with batch ()); event shapes must agree.
    if p.event_shape != q.event_shape:
        raise ValueError(
            "kl_divergence(Independent, Independent): event shapes must match, "
            f"got {p.event_shape} and {q.event_shape}"
        )
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise ValueError(
            "kl_divergence(Independent, Independent): reinterpreted_batch_ndims "
            "must match"
        )
    return p._reduce(distribution.kl_divergence(p.distribution, q.distribution))
