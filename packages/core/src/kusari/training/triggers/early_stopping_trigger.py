"""EarlyStoppingTrigger: stop when a monitored value stops improving."""

from __future__ import annotations

import operator
import warnings
from typing import Any

from kusari import reporter
from kusari.training import util


class EarlyStoppingTrigger:
    """Stop trigger firing after ``patience`` checks without improvement, or
    when ``max_trigger`` fires.

    Args:
        check_trigger: How often the monitored value is checked.
        monitor: The observation key to watch.
        patience: Checks without improvement before stopping (3 when not
            given). ``patients`` is accepted as a deprecated alias; giving
            both raises ``TypeError``.
        mode: ``'max'``, ``'min'`` or ``'auto'`` (max for keys containing
            ``accuracy``, min otherwise).
        verbose: Print a message when stopping.
        max_trigger: Stop unconditionally when this fires.
    """

    def __init__(
        self,
        check_trigger: Any = (1, "epoch"),
        monitor: str = "main/loss",
        patience: int | None = None,
        mode: str = "auto",
        verbose: bool = False,
        max_trigger: Any = (100, "epoch"),
        **kwargs: Any,
    ) -> None:
        if "patients" in kwargs:
            patients = kwargs.pop("patients")
            if patience is not None:
                # As in Chainer: the alias and the name together are an error.
                raise TypeError(
                    "EarlyStoppingTrigger: both 'patience' and 'patients' "
                    "were given; 'patients' is an alias of 'patience', "
                    "give only 'patience'"
                )
            patience = patients
            warnings.warn(
                "EarlyStoppingTrigger: 'patients' is deprecated; use 'patience'",
                DeprecationWarning,
                stacklevel=2,
            )
        if kwargs:
            raise TypeError(
                f"EarlyStoppingTrigger: unexpected arguments {sorted(kwargs)}"
            )
        if mode not in ("max", "min", "auto"):
            raise ValueError(f"mode must be 'max', 'min' or 'auto', got {mode!r}")
        self.count = 0
        self.patience = 3 if patience is None else patience
        self.monitor = monitor
        self.verbose = verbose
        self._max_trigger = util.get_trigger(max_trigger)
        self._interval_trigger = util.get_trigger(check_trigger)
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
        if self.monitor not in observation:
            warnings.warn(f"{self.monitor} is not in the observation", stacklevel=2)
            return False
        current = float(self._summary.compute_mean()[self.monitor])
        self._summary = reporter.DictSummary()
        if self._compare(current, self.best):
            self.best = current
            self.count = 0
        else:
            self.count += 1
        if self._stop_condition():
            if self.verbose:
                print(f"Epoch {trainer.updater.epoch}: early stopping")
            return True
        return False

    def _stop_condition(self) -> bool:
        return self.count >= self.patience

    def get_training_length(self) -> Any:
        return self._max_trigger.get_training_length()

    def serialize(self, serializer: Any) -> None:
        for name, trig in (
            ("max_trigger", self._max_trigger),
            ("interval_trigger", self._interval_trigger),
        ):
            if hasattr(trig, "serialize"):
                trig.serialize(serializer[name])
        self._summary.serialize(serializer["summary"])
        self.count = serializer("count", self.count)
        self.best = float(serializer("best", self.best))
