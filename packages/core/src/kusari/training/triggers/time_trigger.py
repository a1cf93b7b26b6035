"""TimeTrigger: fire every ``period`` seconds of training."""

from __future__ import annotations

from typing import Any


class TimeTrigger:
    """Fire when ``trainer.elapsed_time`` passes the next multiple of
    ``period`` seconds.

    Args:
        period: Seconds between firings.
    """

    def __init__(self, period: float) -> None:
        self._period = period
        self._next_time = period

    def __call__(self, trainer: Any) -> bool:
        if self._next_time < trainer.elapsed_time:
            self._next_time += self._period
            return True
        return False

    def serialize(self, serializer: Any) -> None:
        self._next_time = serializer("next_time", self._next_time)
