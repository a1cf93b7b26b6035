"""Step hooks called by the training loops after every step."""

from __future__ import annotations

from abc import ABCMeta, abstractmethod
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["LinearInterpolationHook", "StepHook"]


class StepHook(metaclass=ABCMeta):
    """Called as ``hook(env, agent, step)`` after each training step."""

    @abstractmethod
    def __call__(self, env: Any, agent: Any, step: int) -> None:
        """Run the hook."""


class LinearInterpolationHook(StepHook):
    """Set a value interpolated linearly from ``start_value`` to ``stop_value``.

    Args:
        total_steps: Steps over which to interpolate.
        start_value: Value at step 0.
        stop_value: Value at ``total_steps`` (and after).
        setter: Called as ``setter(env, agent, value)``.

    Example:
        >>> def set_lr(env, agent, value):
        ...     agent.optimizer.lr = value
        >>> hook = LinearInterpolationHook(10**6, 1e-3, 0.0, set_lr)
    """

    def __init__(
        self,
        total_steps: int,
        start_value: float,
        stop_value: float,
        setter: Callable[[Any, Any, float], None],
    ) -> None:
        if total_steps <= 0:
            raise ValueError(
                "LinearInterpolationHook: total_steps must be positive, got "
                f"{total_steps}"
            )
        self.total_steps = total_steps
        self.start_value = start_value
        self.stop_value = stop_value
        self.setter = setter

    def __call__(self, env: Any, agent: Any, step: int) -> None:
        value = np.interp(
            step, [0, self.total_steps], [self.start_value, self.stop_value]
        )
        self.setter(env, agent, float(value))
