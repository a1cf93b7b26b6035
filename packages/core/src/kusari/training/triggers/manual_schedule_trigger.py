"""ManualScheduleTrigger: fire at listed iterations or epochs."""

from __future__ import annotations

from typing import Any

from kusari.training.triggers._position import PositionTracker, check_unit


class ManualScheduleTrigger(PositionTracker):
    """Fire when the updater reaches one of ``points``.

    Args:
        points: A point or a list of points.
        unit: ``'iteration'`` or ``'epoch'``.

    Attributes:
        finished: True once the last point has fired.
    """

    def __init__(self, points: Any, unit: str) -> None:
        check_unit(unit)
        super().__init__()
        self.points = list(points) if isinstance(points, (list, tuple)) else [points]
        self.unit = unit
        self.finished = False

    def __call__(self, trainer: Any) -> bool:
        updater = trainer.updater
        previous, current = self.previous(updater, self.unit)
        fire = any(previous < p <= current for p in self.points)
        if fire and current >= max(self.points):
            self.finished = True
        self.record(updater)
        return fire

    def serialize(self, serializer: Any) -> None:
        super().serialize(serializer)
        self.finished = serializer("finished", self.finished)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.points}, {self.unit!r})"
