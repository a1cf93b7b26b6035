"""ManualScheduleTrigger: fire at listed iterations or epochs."""

from __future__ import annotations

import warnings
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
        # True after loading a snapshot that did not save ``finished``: the
        # next call works it out from the updater's position.
        self._finished_unknown = False

    def __call__(self, trainer: Any) -> bool:
        updater = trainer.updater
        previous, current = self.previous(updater, self.unit)
        fire = any(previous < p <= current for p in self.points)
        past_the_end = current >= max(self.points)
        if (fire or self._finished_unknown) and past_the_end:
            self.finished = True
        self._finished_unknown = False
        self.record(updater)
        return fire

    def serialize(self, serializer: Any) -> None:
        super().serialize(serializer)
        try:
            self.finished = serializer("finished", self.finished)
        except KeyError:
            warnings.warn(
                "ManualScheduleTrigger: the snapshot has no 'finished' flag; "
                "it is recomputed at the next call",
                stacklevel=2,
            )
            self.finished = False
            self._finished_unknown = True

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.points}, {self.unit!r})"
