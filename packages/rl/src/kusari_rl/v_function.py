"""The state-value function interface (``chainerrl.v_function``)."""

from __future__ import annotations

from abc import ABCMeta, abstractmethod
from typing import Any

__all__ = ["StateValueFunction"]


class StateValueFunction(metaclass=ABCMeta):
    """Abstract V-function: maps a batch of observations to ``(batch, 1)`` values."""

    @abstractmethod
    def __call__(self, x: Any) -> Any:
        """Evaluate ``V(x)``; returns a Variable of shape ``(batch, 1)``."""
