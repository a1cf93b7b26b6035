"""Helpers shared by the stateful rnn links."""

from __future__ import annotations

from typing import Any

from kusari import backend, variable


def zeros_state(link: Any, batch: int, size: int, dtype: Any) -> variable.Variable:
    """A zero state Variable of shape ``(batch, size)`` on ``link``'s device."""
    with backend.using_device(link.device):
        return variable.Variable(link.xp.zeros((batch, size), dtype=dtype))


def check_state(name: str, value: Any) -> variable.Variable:
    if not isinstance(value, variable.Variable):
        raise TypeError(f"{name} must be a Variable, got {type(value).__name__}")
    return value
