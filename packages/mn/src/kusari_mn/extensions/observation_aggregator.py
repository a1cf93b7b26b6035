"""Average a reported value over the ranks and report the result."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from kusari.training import extension
from kusari.training import trigger as trigger_module


def _mean(values: list[Any]) -> Any:
    return sum(values) / len(values)


def _as_float(value: Any) -> Any:
    value = getattr(value, "array", value)
    if hasattr(value, "get") and hasattr(value, "__cuda_array_interface__"):
        value = value.get()
    return numpy.asarray(value, dtype=numpy.float64)


class ObservationAggregator(extension.Extension):
    """Report ``aggregator`` (the mean by default) of a key over all ranks.

    Each rank collects the values of ``original_key`` it observes; when
    ``comm_trigger`` fires, the local means are gathered and aggregated,
    and the result is reported as ``aggregated_key`` on every rank.

    Args:
        comm: The communicator.
        original_key: Observation key to read, e.g. ``'main/loss'``.
        aggregated_key: Key to report (``original_key`` by default).
        comm_trigger: When to communicate.
        aggregator: ``f(list of per-rank values) -> value``.
    """

    trigger = (1, "iteration")
    priority = extension.PRIORITY_EDITOR
    name = None

    def __init__(
        self,
        comm: Any,
        original_key: str,
        aggregated_key: str | None = None,
        *,
        comm_trigger: Any = (1, "iteration"),
        aggregator: Callable[[list[Any]], Any] | None = None,
    ) -> None:
        self.comm = comm
        self.original_key = original_key
        self.aggregated_key = aggregated_key or original_key
        self.comm_trigger = trigger_module.get_trigger(comm_trigger)
        self.aggregator = aggregator or _mean
        self.observations: list[Any] = []

    def __call__(self, trainer: Any) -> None:
        observation = trainer.observation
        if self.original_key in observation:
            self.observations.append(_as_float(observation[self.original_key]))
        if not self.comm_trigger(trainer):
            return
        local = _mean(self.observations) if self.observations else None
        self.observations = []
        everyone = [v for v in self.comm.allgather_obj(local) if v is not None]
        if everyone:
            observation[self.aggregated_key] = self.aggregator(everyone)
