"""IntervalTrigger: fire every ``period`` iterations or epochs."""

from __future__ import annotations

from typing import Any

from kusari.training.triggers._position import PositionTracker, check_unit


class IntervalTrigger(PositionTracker):
    """Fire each time the updater crosses a multiple of ``period``.

    Args:
        period: The interval length.
        unit: ``'iteration'`` or ``'epoch'`` (fractional periods allowed).

    Example:
        >>> IntervalTrigger(5, 'iteration').get_training_length()
        (5, 'iteration')
    """

    def __init__(self, period: float, unit: str) -> None:
        check_unit(unit)
        super().__init__()
        self.period = period
        self.unit = unit
        self.count = 0

    def __call__(self, trainer: Any) -> bool:
        updater = trainer.updater
        previous, current = self.previous(updater, self.unit)
        self.count = int(current // self.period)
        fire = previous // self.period != current // self.period
        self.record(updater)
        return bool(fire)

    def get_training_length(self) -> tuple[float, str]:
        return self.period, self.unit

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.period}, {self.unit!r})"
