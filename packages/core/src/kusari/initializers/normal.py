"""Gaussian initializers: Normal and its fan-scaled variants."""

from __future__ import annotations

from typing import Any

from kusari import initializer
from kusari.initializer import DTypeLike
from kusari.initializers._fan import FanOptionScaled, FanScaled
from kusari.initializers._random import fill_random


class Normal(initializer.Initializer):
    """Draws each element from a Gaussian with mean 0 and std ``scale``.

    Args:
        scale: Standard deviation of the distribution.
        dtype: Data type specifier.
        rng: Random generator (``numpy.random.RandomState``/``Generator``
            or a CuPy ``RandomState``); ``None`` uses the global one.

    Example:
        >>> import numpy
        >>> a = numpy.empty((1000, 100), dtype=numpy.float32)
        >>> Normal(0.1)(a)
        >>> bool(abs(a.std() - 0.1) < 0.01)
        True
    """

    def __init__(
        self, scale: float = 0.05, dtype: DTypeLike | None = None, *, rng: Any = None
    ) -> None:
        self.scale = scale
        self.rng = rng
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        fill_random(array, "normal", self.rng, loc=0.0, scale=self.scale)


class LeCunNormal(FanScaled):
    """Gaussian with std ``scale * sqrt(1 / fan_in)`` (LeCun 98).

    This is the default initializer of link weights.

    Args:
        scale: Multiplier of the standard deviation.
        dtype: Data type specifier.
        rng: Random generator; ``None`` uses the global one.

    Example:
        >>> import numpy
        >>> a = numpy.empty((100, 400), dtype=numpy.float32)
        >>> LeCunNormal()(a)
        >>> bool(abs(a.std() - 0.05) < 0.005)
        True
    """

    distribution = Normal
    gain = 1.0
    fan = "fan_in"


class GlorotNormal(FanScaled):
    """Gaussian with std ``scale * sqrt(2 / (fan_in + fan_out))`` (Glorot 2010).

    Args:
        scale: Multiplier of the standard deviation.
        dtype: Data type specifier.
        rng: Random generator; ``None`` uses the global one.

    Example:
        >>> import numpy
        >>> a = numpy.empty((300, 500), dtype=numpy.float32)
        >>> GlorotNormal()(a)
        >>> bool(abs(a.std() - 0.05) < 0.005)
        True
    """

    distribution = Normal
    gain = 2.0
    fan = "fan_sum"


class HeNormal(FanOptionScaled):
    """Gaussian with std ``scale * sqrt(2 / fan)`` (He et al. 2015).

    Args:
        scale: Multiplier of the standard deviation.
        dtype: Data type specifier.
        fan_option: ``'fan_in'`` (default) or ``'fan_out'``: which fan to use.
        rng: Random generator; ``None`` uses the global one.

    Example:
        >>> import numpy
        >>> a = numpy.empty((100, 800), dtype=numpy.float32)
        >>> HeNormal()(a)
        >>> bool(abs(a.std() - 0.05) < 0.005)
        True
    """

    distribution = Normal
    gain = 2.0
