"""Triggers firing when an observed value reaches a new best."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kusari import reporter
from kusari.training import util


class BestValueTrigger:
    """Fire when the mean of ``key`` over an interval beats the best so far.

    Args:
        key: The observation key (e.g. ``'validation/main/loss'``).
        compare: ``compare(best, new)`` is True when ``new`` is better.
        trigger: The interval over which ``key`` is averaged and checked.
    """

    def __init__(
        self,
        key: str,
        compare: Callable[[float, float], bool],
        trigger: Any = (1, "epoch"),
    ) -> None:
        self._key = key
        self._best_value: float | None = None
        self._interval_trigger = util.get_trigger(trigger)
        self._summary = reporter.DictSummary()
        self._compare = compare

    def __call__(self, trainer: Any) -> bool:
        observation = trainer.observation
        key = self._key
        if key in observation:
            self._summary.add({key: observation[key]})
        if not self._interval_trigger(trainer):
            return False
        stats = self._summary.compute_mean()
        if key not in stats:
            return False
        value = float(stats[key])
        self._summary = reporter.DictSummary()
        if self._best_value is None or self._compare(self._best_value, value):
            self._best_value = value
            return True
        return False

    def serialize(self, serializer: Any) -> None:
        if hasattr(self._interval_trigger, "serialize"):
            self._interval_trigger.serialize(serializer["interval_trigger"])
        self._summary.serialize(serializer["summary"])
        best = serializer("best_value", self._best_value)
        self._best_value = None if best is None else float(best)


class MaxValueTrigger(BestValueTrigger):
    """Fire when the mean of ``key`` reaches a new maximum.

    Args:
        key: The observation key.
        trigger: The checking interval.
    """

    def __init__(self, key: str, trigger: Any = (1, "epoch")) -> None:
        super().__init__(key, lambda best, new: new > best, trigger)


class MinValueTrigger(BestValueTrigger):
    """Fire when the mean of ``key`` reaches a new minimum.

    Args:
        key: The observation key.
        trigger: The checking interval.
    """

    def __init__(self, key: str, trigger: Any = (1, "epoch")) -> None:
        super().__init__(key, lambda best, new: new < best, trigger)
