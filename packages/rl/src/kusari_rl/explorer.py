"""Explorer interface (``chainerrl.explorer``)."""

from __future__ import annotations

from abc import ABCMeta, abstractmethod
from collections.abc import Callable
from typing import Any

__all__ = ["Explorer"]


class Explorer(metaclass=ABCMeta):
    """Turns the agent's greedy choice into the action actually taken."""

    @abstractmethod
    def select_action(
        self, t: int, greedy_action_func: Callable[[], Any], action_value: Any = None
    ) -> Any:
        """Select an action.

        Args:
            t: Current time step (drives decaying schedules).
            greedy_action_func: Returns the greedy action; called only when
                it is needed.
            action_value: The agent's action values (for Boltzmann).
        """
