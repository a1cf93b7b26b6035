"""Trigger helpers."""

from __future__ import annotations

from typing import Any


def get_trigger(trigger: Any) -> Any:
    """Turn ``trigger`` into a callable trigger.

    A callable is returned as is; None gives a trigger that never fires; a
    ``(period, unit)`` tuple gives an :class:`IntervalTrigger`.

    Example:
        >>> get_trigger((2, 'epoch'))
        IntervalTrigger(2, 'epoch')
    """
    from kusari.training.triggers import interval_trigger

    if callable(trigger):
        return trigger
    if trigger is None:
        return _never_fire_trigger
    return interval_trigger.IntervalTrigger(*trigger)


def _never_fire_trigger(trainer: Any) -> bool:
    return False
