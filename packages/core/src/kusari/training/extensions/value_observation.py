"""observe_value / observe_lr: put a computed value into the observation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kusari.training import extension


def observe_value(observation_key: str, target_func: Callable[[Any], Any]) -> Any:
    """Extension storing ``target_func(trainer)`` as
    ``trainer.observation[observation_key]`` (each epoch by default).

    Args:
        observation_key: The key.
        target_func: Computes the value from the trainer.
    """

    @extension.make_extension(trigger=(1, "epoch"), priority=extension.PRIORITY_WRITER)
    def _observe_value(trainer: Any) -> None:
        trainer.observation[observation_key] = target_func(trainer)

    return _observe_value


def observe_lr(optimizer_name: str = "main", observation_key: str = "lr") -> Any:
    """Extension observing an optimizer's ``lr``.

    Args:
        optimizer_name: The updater's name of the optimizer.
        observation_key: The key.
    """
    return observe_value(
        observation_key,
        lambda trainer: trainer.updater.get_optimizer(optimizer_name).lr,
    )
