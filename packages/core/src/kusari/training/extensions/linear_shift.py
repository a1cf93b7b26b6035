"""LinearShift: move an attribute linearly between two values."""

from __future__ import annotations

from typing import Any

from kusari.training.extensions._shift import ValueShift


class LinearShift(ValueShift):
    """Move ``optimizer.<attr>`` from ``value_range[0]`` to ``value_range[1]``
    between calls ``time_range[0]`` and ``time_range[1]``.

    Args:
        attr: The attribute.
        value_range: ``(start, end)`` values.
        time_range: ``(t1, t2)`` call counts.
        optimizer: The optimizer; the updater's main one by default.
    """

    def __init__(
        self,
        attr: str,
        value_range: tuple[float, float],
        time_range: tuple[int, int],
        optimizer: Any = None,
    ) -> None:
        super().__init__(attr, None, optimizer)
        self._value_range = value_range
        self._time_range = time_range

    def _initial_value(self) -> float:
        return self._compute()

    def _compute(self) -> float:
        t1, t2 = self._time_range
        v1, v2 = self._value_range
        if self._t <= t1:
            return v1
        if self._t >= t2:
            return v2
        return v1 + (self._t - t1) / (t2 - t1) * (v2 - v1)
