"""ExponentialShift: multiply an optimizer attribute by ``rate`` each call."""

from __future__ import annotations

from typing import Any

from kusari.training.extensions._shift import ValueShift, clamp


class ExponentialShift(ValueShift):
    """Set ``optimizer.<attr> = init * rate ** t`` at the t-th call.

    Args:
        attr: The attribute (e.g. ``'lr'``).
        rate: The factor per call (non-negative).
        init: The initial value; the optimizer's current value by default.
        target: A limit the value stops at.
        optimizer: The optimizer; the updater's main one by default.
    """

    def __init__(
        self,
        attr: str,
        rate: float,
        init: float | None = None,
        target: float | None = None,
        optimizer: Any = None,
    ) -> None:
        if rate < 0:
            raise ValueError(f"ExponentialShift: rate must be >= 0, got {rate}")
        super().__init__(attr, init, optimizer)
        self._rate = rate
        self._target = target

    def _compute(self) -> float:
        assert self._init is not None
        value = self._init * self._rate**self._t
        return clamp(value, self._target, self._rate > 1)
