"""MicroAverage: report sum(numerator) / sum(denominator) over an interval."""

from __future__ import annotations

from typing import Any

from kusari import reporter
from kusari.training import extension
from kusari.training.util import get_trigger


class MicroAverage(extension.Extension):
    """Report ``sum(numerator) / sum(denominator)`` of two observed values
    accumulated until ``trigger`` fires (e.g. accuracy over varying batch
    sizes).

    Args:
        numerator_key: Key of the numerator (e.g. ``'main/correct'``).
        denominator_key: Key of the denominator (e.g. ``'main/total'``).
        result_key: Key of the reported ratio.
        trigger: When to report and reset.
    """

    priority = extension.PRIORITY_EDITOR

    def __init__(
        self,
        numerator_key: str,
        denominator_key: str,
        result_key: str,
        trigger: Any = (1, "epoch"),
    ) -> None:
        self._trigger = get_trigger(trigger)
        self._numerator_key = numerator_key
        self._denominator_key = denominator_key
        self._result_key = result_key
        self._numerator: Any = 0
        self._denominator: Any = 0

    def __call__(self, trainer: Any) -> None:
        observation = trainer.observation
        if not (
            self._numerator_key in observation and self._denominator_key in observation
        ):
            return
        self._numerator += observation[self._numerator_key]
        self._denominator += observation[self._denominator_key]
        if self._trigger(trainer):
            result = float(self._numerator) / float(self._denominator)
            self._numerator = 0
            self._denominator = 0
            reporter.report({self._result_key: result})

    def serialize(self, serializer: Any) -> None:
        if hasattr(self._trigger, "serialize"):
            self._trigger.serialize(serializer["_trigger"])
        self._numerator = serializer("_numerator", self._numerator)
        self._denominator = serializer("_denominator", self._denominator)
