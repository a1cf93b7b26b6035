"""The previous-position bookkeeping shared by interval-like triggers."""

from __future__ import annotations

import warnings
from typing import Any

UNITS = ("epoch", "iteration")


def check_unit(unit: str) -> None:
    if unit not in UNITS:
        raise ValueError(f"trigger unit must be 'epoch' or 'iteration', got {unit!r}")


class PositionTracker:
    """Remembers the updater's position at the previous call."""

    def __init__(self) -> None:
        self._previous_iteration: int = 0
        self._previous_epoch_detail: float = 0.0

    def previous(self, updater: Any, unit: str) -> tuple[float, float]:
        """``(previous, current)`` positions in ``unit``."""
        if unit == "epoch":
            previous = self._previous_epoch_detail
            if previous < 0:
                previous = updater.previous_epoch_detail or 0.0
            return previous, updater.epoch_detail
        previous_it: float = self._previous_iteration
        if previous_it < 0:
            previous_it = updater.iteration - 1
        return previous_it, updater.iteration

    def record(self, updater: Any) -> None:
        self._previous_iteration = updater.iteration
        if hasattr(updater, "epoch_detail"):
            self._previous_epoch_detail = updater.epoch_detail

    def serialize(self, serializer: Any) -> None:
        try:
            self._previous_iteration = serializer(
                "previous_iteration", self._previous_iteration
            )
        except KeyError:
            warnings.warn(
                "the previous iteration of a trigger was not saved; "
                "guessing it from the current iteration",
                stacklevel=3,
            )
            self._previous_iteration = -1
        try:
            self._previous_epoch_detail = serializer(
                "previous_epoch_detail", self._previous_epoch_detail
            )
        except KeyError:
            warnings.warn(
                "the previous epoch_detail of a trigger was not saved; "
                "guessing it from the updater",
                stacklevel=3,
            )
            self._previous_epoch_detail = -1.0
