"""Q-function interfaces (``chainerrl.q_function``)."""

from __future__ import annotations

from abc import ABCMeta, abstractmethod
from typing import Any

__all__ = ["StateActionQFunction", "StateQFunction"]


class StateQFunction(metaclass=ABCMeta):
    """``Q(s, .)``: maps a batch of states to an action value."""

    @abstractmethod
    def __call__(self, x: Any) -> Any:
        """Return an :class:`~kusari_rl.action_value.ActionValue` for ``x``."""


class StateActionQFunction(metaclass=ABCMeta):
    """``Q(s, a)``: maps batches of states and actions to values."""

    @abstractmethod
    def __call__(self, x: Any, a: Any) -> Any:
        """Return the values of shape ``(batch, 1)``."""
