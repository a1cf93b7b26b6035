"""PolynomialShift: ``init * (1 - t / max_count) ** rate``."""

from __future__ import annotations

from typing import Any

from kusari.training.extensions._shift import ValueShift, clamp


class PolynomialShift(ValueShift):
    """Set ``optimizer.<attr> = init * max(1 - t / max_count, 0) ** rate``.

    Args:
        attr: The attribute.
        rate: The exponent.
        max_count: Calls until the value reaches zero.
        init: The initial value; the optimizer's current value by default.
        target: A limit the value stops at.
        optimizer: The optimizer; the updater's main one by default.
    """

    def __init__(
        self,
        attr: str,
        rate: float,
        max_count: int,
        init: float | None = None,
        target: float | None = None,
        optimizer: Any = None,
    ) -> None:
        super().__init__(attr, init, optimizer)
        self._rate = rate
        self._max_count = max_count
        self._target = target

    def _compute(self) -> float:
        assert self._init is not None
        decay = max(1 - self._t / self._max_count, 0)
        value = self._init * decay**self._rate
        return clamp(value, self._target, self._rate <= 0)
