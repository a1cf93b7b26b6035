"""The base of the fan-scaled initializers (LeCun, Glorot, He; normal and uniform)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

from kusari import initializer
from kusari.initializer import DTypeLike

_FAN_OPTIONS = ("fan_in", "fan_out")


def check_fan_option(fan_option: str) -> None:
    if fan_option not in _FAN_OPTIONS:
        raise ValueError(
            f"fan_option should be either 'fan_in' or 'fan_out', got {fan_option!r}"
        )


class FanScaled(initializer.Initializer):
    """Fills with ``distribution(scale * sqrt(gain / fan))`` for the array's fan.

    Subclasses choose ``distribution`` (``Normal``: the spread is the standard
    deviation; ``Uniform``: the half-width), ``gain`` and ``fan``:
    ``'fan_in'``, ``'fan_out'`` or ``'fan_sum'`` (``fan_in + fan_out``).
    """

    distribution: ClassVar[type[initializer.Initializer]]
    gain: ClassVar[float]
    fan: str = "fan_in"

    def __init__(
        self, scale: float = 1.0, dtype: DTypeLike | None = None, *, rng: Any = None
    ) -> None:
        self.scale = scale
        self.rng = rng
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        fan_in, fan_out = initializer.get_fans(array.shape)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_sum": fan_in + fan_out}
        spread = self.scale * math.sqrt(self.gain / fan[self.fan])
        self.distribution(spread, rng=self.rng)(array)  # type: ignore[call-arg]


class FanOptionScaled(FanScaled):
    """:class:`FanScaled` whose fan is chosen by the ``fan_option`` argument (He)."""

    def __init__(
        self,
        scale: float = 1.0,
        dtype: DTypeLike | None = None,
        fan_option: str = "fan_in",
        *,
        rng: Any = None,
    ) -> None:
        check_fan_option(fan_option)
        self.fan_option = fan_option
        self.fan = fan_option
        super().__init__(scale, dtype, rng=rng)
