"""Compatibility module: ``kusari.training.trigger``."""

from kusari.training.triggers.interval_trigger import IntervalTrigger
from kusari.training.util import get_trigger

__all__ = ["IntervalTrigger", "get_trigger"]
