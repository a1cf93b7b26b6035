"""Gaussian initializers: Normal and its fan-scaled variants."""

from __future__ import annotations

import math
from typing import Any

from kusari import initializer
from kusari.initializer import DTypeLike
from kusari.initializers._random import fill_random

_FAN_OPTIONS = ("fan_in", "fan_out")


def _check_fan_option(fan_option: str) -> None:
    if fan_option not in _FAN_OPTIONS:
        raise ValueError(
            f"fan_option should be either 'fan_in' or 'fan_out', got {fan_option!r}"
        )


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


class LeCunNormal(initializer.Initializer):
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

    def __init__(
        self, scale: float = 1.0, dtype: DTypeLike | None = None, *, rng: Any = None
    ) -> None:
        self.scale = scale
        self.rng = rng
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        fan_in, _ = initializer.get_fans(array.shape)
        Normal(self.scale * math.sqrt(1.0 / fan_in), rng=self.rng)(array)


class GlorotNormal(initializer.Initializer):
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

    def __init__(
        self, scale: float = 1.0, dtype: DTypeLike | None = None, *, rng: Any = None
    ) -> None:
        self.scale = scale
        self.rng = rng
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        fan_in, fan_out = initializer.get_fans(array.shape)
        std = self.scale * math.sqrt(2.0 / (fan_in + fan_out))
        Normal(std, rng=self.rng)(array)


class HeNormal(initializer.Initializer):
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

    def __init__(
        self,
        scale: float = 1.0,
        dtype: DTypeLike | None = None,
        fan_option: str = "fan_in",
        *,
        rng: Any = None,
    ) -> None:
        _check_fan_option(fan_option)
        self.scale = scale
        self.fan_option = fan_option
        self.rng = rng
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        fan_in, fan_out = initializer.get_fans(array.shape)
        fan = fan_in if self.fan_option == "fan_in" else fan_out
        Normal(self.scale * math.sqrt(2.0 / fan), rng=self.rng)(array)
