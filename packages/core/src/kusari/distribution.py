"""Base class of probability distributions and the KL-divergence registry.

Example:
    >>> import numpy as np
    >>> from kusari import distributions as D
    >>> from kusari.distribution import kl_divergence
    >>> p = D.Normal(np.zeros(2, np.float32), np.ones(2, np.float32))
    >>> q = D.Normal(np.ones(2, np.float32), np.ones(2, np.float32))
    >>> kl_divergence(p, q).array
    array([0.5, 0.5], dtype=float32)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy

from kusari import backend
from kusari.variable import Variable

_KLDIVERGENCE: dict[tuple[type, type], Callable[[Any, Any], Any]] = {}


class Distribution:
    """Interface of a probability distribution.

    A sample is made of ``sample_shape + batch_shape + event_shape``: batches
    are independent (possibly differently parameterised) distributions, and
    the values inside one event are jointly distributed. Everything computed
    from :class:`~kusari.Variable` parameters is differentiable.
    """

    # ----- shapes and parameters -------------------------------------------------
    @property
    def batch_shape(self) -> tuple[int, ...]:
        """Shape of a batch of independent distributions."""
        raise NotImplementedError

    @property
    def event_shape(self) -> tuple[int, ...]:
        """Shape of one event (one draw of one distribution)."""
        raise NotImplementedError

    @property
    def params(self) -> dict[str, Variable]:
        """The parameters of the distribution, by name."""
        raise NotImplementedError

    @property
    def xp(self) -> Any:
        """Array module (``numpy`` or ``cupy``) of the parameters."""
        for value in self.params.values():
            return backend.get_array_module(value)
        return numpy

    @property
    def device(self) -> Any:
        """Device of the parameters."""
        for value in self.params.values():
            return backend.get_device_from_array(value.array)
        return backend.get_device("@numpy")

    # ----- statistics ----------------------------------------------------------
    @property
    def covariance(self) -> Variable:
        """Covariance of the distribution."""
        raise NotImplementedError

    @property
    def entropy(self) -> Variable:
        """Entropy of the distribution."""
        raise NotImplementedError

    @property
    def mean(self) -> Variable:
        """Mean of the distribution."""
        raise NotImplementedError

    @property
    def mode(self) -> Variable:
        """Mode of the distribution."""
        raise NotImplementedError

    @property
    def variance(self) -> Variable:
        """Variance of the distribution."""
        raise NotImplementedError

    @property
    def stddev(self) -> Variable:
        """Standard deviation (square root of :attr:`variance`)."""
        from kusari.functions import sqrt

        return sqrt(self.variance)

    @property
    def support(self) -> str:
        """The support of the distribution, as a string."""
        raise NotImplementedError

    # ----- functions of a realisation -----------------------------------------
    def log_prob(self, x: Any) -> Variable:
        """Logarithm of the probability (density or mass) at ``x``."""
        raise NotImplementedError

    def prob(self, x: Any) -> Variable:
        """Probability (density or mass) at ``x``."""
        from kusari.functions import exp

        return exp(self.log_prob(x))

    def cdf(self, x: Any) -> Variable:
        """Cumulative distribution function at ``x``."""
        raise NotImplementedError

    def log_cdf(self, x: Any) -> Variable:
        """Logarithm of the cumulative distribution function at ``x``."""
        from kusari.functions import log

        return log(self.cdf(x))

    def icdf(self, x: Any) -> Variable:
        """Inverse of the cumulative distribution function at ``x``."""
        raise NotImplementedError

    def survival_function(self, x: Any) -> Variable:
        """Survival function ``1 - cdf(x)``."""
        return 1.0 - self.cdf(x)

    def log_survival_function(self, x: Any) -> Variable:
        """Logarithm of the survival function at ``x``."""
        from kusari.functions import log

        return log(self.survival_function(x))

    def perplexity(self, x: Any) -> Variable:
        """Perplexity ``exp(-log_prob(x))`` at ``x``."""
        from kusari.functions import exp

        return exp(-self.log_prob(x))

    # ----- sampling -----------------------------------------------------------
    def sample(self, sample_shape: Any = ()) -> Variable:
        """Draw samples of shape ``sample_shape + batch_shape + event_shape``.

        Args:
            sample_shape: An int or a tuple of ints.
        """
        from kusari.functions import reshape

        if isinstance(sample_shape, (int, numpy.integer)):
            sample_shape = (int(sample_shape),)
        sample_shape = tuple(int(s) for s in sample_shape)
        n = math.prod(sample_shape)
        samples = self.sample_n(n)
        return reshape(samples, sample_shape + tuple(samples.shape[1:]))

    def sample_n(self, n: int) -> Variable:
        """Draw ``n`` samples: shape ``(n,) + batch_shape + event_shape``."""
        raise NotImplementedError

    def __repr__(self) -> str:
        try:
            params = self.params
        except NotImplementedError:
            return f"{type(self).__name__}()"
        inner = ", ".join(
            f"{name}={getattr(value, 'array', value)!r}"
            for name, value in params.items()
        )
        return f"{type(self).__name__}({inner})"


def register_kl(
    dist1: type, dist2: type
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator registering the KL divergence of ``dist1`` from ``dist2``.

    Args:
        dist1: A :class:`Distribution` subclass.
        dist2: A :class:`Distribution` subclass.

    Example:
        >>> from kusari.distribution import Distribution, register_kl
        >>> class A(Distribution):
        ...     pass
        >>> @register_kl(A, A)
        ... def _kl_a_a(p, q):
        ...     return 0.0
        >>> kl_divergence(A(), A())
        0.0
    """
    if not (isinstance(dist1, type) and issubclass(dist1, Distribution)):
        raise TypeError(
            f"register_kl: dist1 must be a Distribution subclass, got {dist1!r}"
        )
    if not (isinstance(dist2, type) and issubclass(dist2, Distribution)):
        raise TypeError(
            f"register_kl: dist2 must be a Distribution subclass, got {dist2!r}"
        )

    def decorator(f: Callable[..., Any]) -> Callable[..., Any]:
        _KLDIVERGENCE[dist1, dist2] = f
        return f

    return decorator


def _find_kl(type1: type, type2: type) -> Callable[..., Any] | None:
    f = _KLDIVERGENCE.get((type1, type2))
    if f is not None:
        return f
    for i, t1 in enumerate(type1.__mro__):
        for j, t2 in enumerate(type2.__mro__):
            if i == 0 and j == 0:
                continue
            f = _KLDIVERGENCE.get((t1, t2))
            if f is not None:
                return f
    return None


def kl_divergence(dist1: Distribution, dist2: Distribution) -> Variable:
    """Kullback-Leibler divergence ``KL(dist1 || dist2)``.

    Raises:
        NotImplementedError: No KL divergence is registered for the pair.
    """
    f = _find_kl(type(dist1), type(dist2))
    if f is None:
        raise NotImplementedError(
            f"KL divergence between {type(dist1).__name__} and "
            f"{type(dist2).__name__} is not registered"
        )
    return f(dist1, dist2)


def cross_entropy(dist1: Distribution, dist2: Distribution) -> Variable:
    """Cross entropy ``H(dist1, dist2) = H(dist1) + KL(dist1 || dist2)``."""
    return dist1.entropy + kl_divergence(dist1, dist2)
