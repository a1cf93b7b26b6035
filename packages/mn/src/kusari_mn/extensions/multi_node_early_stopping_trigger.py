"""Early stopping decided on the mean of a value over all ranks."""

from __future__ import annotations

import operator
from typing import Any

import numpy

from kusari import reporter
from kusari.training.util import get_trigger


class MultiNodeEarlyStoppingTrigger:
    """:class:`~kusari.training.triggers.EarlyStoppingTrigger` across ranks.

    At each check the ranks' means of ``monitor`` are averaged, so every
    rank sees the same value and all of them stop at the same iteration
    (a rank stopping alone would leave the others waiting in a collective).

    Args:
        comm: The communicator.
        check_trigger: How often to check.
        monitor: The observation key.
        patience: Checks without improvement before stopping.
        mode: ``'max'``, ``'min'`` or ``'auto'`` (max for accuracies).
        verbose: Print a message on rank 0 when stopping.
        max_trigger: Stop unconditionally when this fires.
    """

    def __init__(
        self,
        comm: Any,
        check_trigger: Any = (1, "epoch"),
        monitor: str = "main/loss",
        patience: int = 3,
        mode: str = "auto",
        verbose: bool = False,
        max_trigger: Any = (100, "epoch"),
    ) -> None:
        if mode not in ("max", "min", "auto"):
            raise ValueError(
                "MultiNodeEarlyStoppingTrigger: mode must be 'max', 'min' or "
                f"'auto', got {mode!r}"
            )
        self.comm = comm
        self.count = 0
        self.patience = patience
        self.monitor = monitor
        self.verbose = verbose
        self._max_trigger = get_trigger(max_trigger)
        self._interval_trigger = get_trigger(check_trigger)
        self._summary = reporter.DictSummary()
        if mode == "max" or (mode == "auto" and "accuracy" in monitor):
            self._compare = operator.gt
            self.best = float("-inf")
        else:
            self._compare = operator.lt
            self.best = float("inf")

    def __call__(self, trainer: Any) -> bool:
        observation = trainer.observation
        if self.monitor in observation:
            self._summary.add({self.monitor: observation[self.monitor]})
        if self._max_trigger(trainer):
            return True
        if not self._interval_trigger(trainer):
            return False
        means = self._summary.compute_mean()
        self._summary = reporter.DictSummary()
        local = None
        if self.monitor in means:
            value = getattr(means[self.monitor], "array", means[self.monitor])
            local = float(
                numpy.asarray(value.get() if hasattr(value, "get") else value)
            )
        values = [v for v in self.comm.allgather_obj(local) if v is not None]
        if not values:
            return False
        current = sum(values) / len(values)
        if self._compare(current, self.best):
            self.best = current
            self.count = 0
        else:
            self.count += 1
        if self.count >= self.patience:
            if self.verbose and self.comm.rank == 0:
                print(f"Epoch {trainer.updater.epoch}: early stopping")
            return True
        return False

    def get_training_length(self) -> Any:
        return self._max_trigger.get_training_length()
