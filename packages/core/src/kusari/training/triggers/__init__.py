"""Triggers: decide when the trainer stops or calls an extension."""

from kusari.training.triggers.early_stopping_trigger import EarlyStoppingTrigger
from kusari.training.triggers.interval_trigger import IntervalTrigger
from kusari.training.triggers.manual_schedule_trigger import ManualScheduleTrigger
from kusari.training.triggers.minmax_value_trigger import (
    BestValueTrigger,
    MaxValueTrigger,
    MinValueTrigger,
)
from kusari.training.triggers.once_trigger import OnceTrigger
from kusari.training.triggers.time_trigger import TimeTrigger

__all__ = [
    "BestValueTrigger",
    "EarlyStoppingTrigger",
    "IntervalTrigger",
    "ManualScheduleTrigger",
    "MaxValueTrigger",
    "MinValueTrigger",
    "OnceTrigger",
    "TimeTrigger",
]
