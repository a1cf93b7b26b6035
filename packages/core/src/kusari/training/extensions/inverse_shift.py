"""InverseShift: ``init * (1 + gamma * t) ** -power``."""

from __future__ import annotations

from typing import Any

from kusari.training.extensions._shift import ValueShift, clamp


class InverseShift(ValueShift):
    """Set ``optimizer.<attr> = init * (1 + gamma * t) ** (-power)``.

    Args:
        attr: The attribute.
        gamma: Time scale.
        power: Exponent.
        init: The initial value; the optimizer's current value by default.
        target: A limit the value stops at.
        optimizer: The optimizer; the updater's main one by default.
    """

    def __init__(
        self,
        attr: str,
        gamma: float,
        power: float,
        init: float | None = None,
        target: float | None = None,
        optimizer: Any = None,
    ) -> None:
        if gamma < 0:
            raise ValueError(f"InverseShift: gamma must be >= 0, got {gamma}")
        super().__init__(attr, init, optimizer)
        self._gamma = gamma
        self._power = power
        self._target = target

    def _compute(self) -> float:
        assert self._init is not None
        value = self._init * (1 + self._gamma * self._t) ** (-self._power)
        return clamp(value, self._target, self._power < 0)
