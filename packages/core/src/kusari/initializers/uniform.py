"""Uniform initializers: Uniform and its fan-scaled variants."""

from __future__ import annotations

from typing import Any

from kusari import initializer
from kusari.initializer import DTypeLike
from kusari.initializers._fan import FanOptionScaled, FanScaled
from kusari.initializers._random import fill_random


class Uniform(initializer.Initializer):
    """Draws each element uniformly from ``[-scale, scale)``.

    Args:
        scale: Half-width of the interval.
        dtype: Data type specifier.
        rng: Random generator (``numpy.random.RandomState``/``Generator``
            or a CuPy ``RandomState``); ``None`` uses the global one.

    Example:
        >>> import numpy
        >>> a = numpy.empty((10, 10), dtype=numpy.float32)
        >>> Uniform(0.5)(a)
        >>> bool(abs(a).max() <= 0.5)
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
        fill_random(array, "uniform", self.rng, low=-self.scale, high=self.scale)


class LeCunUniform(FanScaled):
    """Uniform on ``[-s, s)`` with ``s = scale * sqrt(3 / fan_in)``.

    Args:
        scale: Multiplier of the half-width.
        dtype: Data type specifier.
        rng: Random generator; ``None`` uses the global one.

    Example:
        >>> import numpy
        >>> a = numpy.empty((10, 300), dtype=numpy.float32)
        >>> LeCunUniform()(a)
        >>> bool(abs(a).max() <= 0.1)
        True
    """

    distribution = Uniform
    gain = 3.0
    fan = "fan_in"


class GlorotUniform(FanScaled):
    """Uniform on ``[-s, s)`` with ``s = scale * sqrt(6 / (fan_in + fan_out))``.

    Args:
        scale: Multiplier of the half-width.
        dtype: Data type specifier.
        rng: Random generator; ``None`` uses the global one.

    Example:
        >>> import numpy
        >>> a = numpy.empty((200, 400), dtype=numpy.float32)
        >>> GlorotUniform()(a)
        >>> bool(abs(a).max() <= 0.1)
        True
    """

    distribution = Uniform
    gain = 6.0
    fan = "fan_sum"


class HeUniform(FanOptionScaled):
    """Uniform on ``[-s, s)`` with ``s = scale * sqrt(6 / fan)``.

    Args:
        scale: Multiplier of the half-width.
        dtype: Data type specifier.
        fan_option: ``'fan_in'`` (default) or ``'fan_out'``: which fan to use.
        rng: Random generator; ``None`` uses the global one.

    Example:
        >>> import numpy
        >>> a = numpy.empty((10, 600), dtype=numpy.float32)
        >>> HeUniform()(a)
        >>> bool(abs(a).max() <= 0.1)
        True
    """

    distribution = Uniform
    gain = 6.0
