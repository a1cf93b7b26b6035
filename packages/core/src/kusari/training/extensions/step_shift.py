"""StepShift: multiply an attribute by ``gamma`` every ``step`` calls."""

from __future__ import annotations

from typing import Any

from kusari.training.extensions._shift import ValueShift, clamp


class StepShift(ValueShift):
    """Set ``optimizer.<attr> = init * gamma ** floor(t / step)``.

    Args:
        attr: The attribute.
        gamma: The factor per step.
        step: Calls per step.
        init: The initial value; the optimizer's current value by default.
        target: A limit the value stops at.
        optimizer: The optimizer; the updater's main one by default.
    """

    def __init__(
        self,
        attr: str,
        gamma: float,
        step: int,
        init: float | None = None,
        target: float | None = None,
        optimizer: Any = None,
    ) -> None:
        super().__init__(attr, init, optimizer)
        self._gamma = gamma
        self._step = step
        self._target = target

    def _compute(self) -> float:
        assert self._init is not None
        value = self._init * self._gamma ** (self._t // self._step)
        return clamp(value, self._target, self._gamma > 1)
