"""MultistepShift: multiply an attribute by ``gamma`` at listed calls."""

from __future__ import annotations

from typing import Any

from kusari.training.extensions._shift import ValueShift


class MultistepShift(ValueShift):
    """Set ``optimizer.<attr> = init * gamma ** k`` where ``k`` counts the
    entries of ``step_value`` already reached.

    Args:
        attr: The attribute.
        gamma: The factor per step.
        step_value: Calls at which to step, ascending.
        init: The initial value.
        optimizer: The optimizer; the updater's main one by default.
    """

    def __init__(
        self,
        attr: str,
        gamma: float,
        step_value: Any,
        init: float,
        optimizer: Any = None,
    ) -> None:
        super().__init__(attr, init, optimizer)
        self._gamma = gamma
        self._step_value = list(step_value)
        self._current_step = 0

    def _compute(self) -> float:
        assert self._init is not None
        if (
            self._current_step < len(self._step_value)
            and self._t >= self._step_value[self._current_step]
        ):
            self._current_step += 1
        return self._init * self._gamma**self._current_step

    def serialize(self, serializer: Any) -> None:
        super().serialize(serializer)
        self._current_step = serializer("_current_step", self._current_step)
