"""WarmupShift: ramp an attribute up linearly over the first iterations."""

from __future__ import annotations

from typing import Any

from kusari.training.extensions._shift import ValueShift


class WarmupShift(ValueShift):
    """Ramp ``optimizer.<attr>`` from ``warmup_start`` to ``init`` over
    ``warmup_iter`` calls, then leave it alone (so another shift can take
    over).

    Args:
        attr: The attribute.
        warmup_start: The value at the start.
        warmup_iter: Calls the warm-up lasts.
        init: The value reached; the optimizer's current value by default.
        optimizer: The optimizer; the updater's main one by default.
    """

    def __init__(
        self,
        attr: str,
        warmup_start: float,
        warmup_iter: int,
        init: float | None = None,
        optimizer: Any = None,
    ) -> None:
        super().__init__(attr, init, optimizer)
        self._warmup_start = warmup_start
        self._warmup_iter = warmup_iter

    def _initial_value(self) -> float:
        return self._warmup_start

    def _compute(self) -> float | None:
        assert self._init is not None
        if self._t < self._warmup_iter:
            return (
                self._warmup_start
                + (self._init - self._warmup_start) * self._t / self._warmup_iter
            )
        if self._t == self._warmup_iter:
            return self._init
        return None
