"""LogReport: average observations over an interval and write a JSON log."""

from __future__ import annotations

import json
import os
import warnings
from typing import Any

from kusari import reporter
from kusari import serializer as serializer_module
from kusari.training import extension
from kusari.training.util import get_trigger
from kusari.utils.atomic import atomic_write


class LogReport(extension.Extension):
    """Accumulate the observations and, each time ``trigger`` fires, append
    their means (plus ``epoch``, ``iteration``, ``elapsed_time``) to
    :attr:`log` and rewrite the JSON file ``out/filename`` atomically.

    Args:
        keys: The keys to log; all by default.
        trigger: When to emit a log entry.
        postprocess: Called with each entry before it is stored.
        filename: File name under ``trainer.out`` (a format string filled from
            the entry); ``'log'`` when None.
        log_name: Deprecated alias of ``filename``; ``log_name=None`` (with no
            ``filename``) writes no file, as in Chainer.
    """

    def __init__(
        self,
        keys: list[str] | None = None,
        trigger: Any = (1, "epoch"),
        postprocess: Any = None,
        filename: str | None = None,
        **kwargs: Any,
    ) -> None:
        log_name = kwargs.pop("log_name", "log")
        if kwargs:
            raise TypeError(f"LogReport: unexpected arguments {sorted(kwargs)}")
        self._keys = keys
        self._trigger = get_trigger(trigger)
        self._postprocess = postprocess
        self._log: list[dict[str, Any]] = []
        self._log_name = log_name if filename is None else filename
        self._summary = reporter.DictSummary()

    def __call__(self, trainer: Any) -> None:
        observation = trainer.observation
        if self._keys is None:
            self._summary.add(observation)
        else:
            self._summary.add(
                {k: observation[k] for k in self._keys if k in observation}
            )
        if not self._trigger(trainer):
            return
        stats = {
            name: float(value) for name, value in self._summary.compute_mean().items()
        }
        updater = trainer.updater
        stats["epoch"] = updater.epoch
        stats["iteration"] = updater.iteration
        stats["elapsed_time"] = trainer.elapsed_time
        if self._postprocess is not None:
            self._postprocess(stats)
        self._log.append(stats)
        if self._log_name is not None:
            path = os.path.join(trainer.out, self._log_name.format(**stats))
            with atomic_write(path, "w") as f:
                json.dump(self._log, f, indent=4)
        self._summary = reporter.DictSummary()

    @property
    def log(self) -> list[dict[str, Any]]:
        """The entries emitted so far."""
        return self._log

    def serialize(self, serializer: Any) -> None:
        if hasattr(self._trigger, "serialize"):
            self._trigger.serialize(serializer["_trigger"])
        try:
            self._summary.serialize(serializer["_summary"])
        except KeyError:
            warnings.warn("LogReport: the statistics were not saved", stacklevel=2)
        if isinstance(serializer, serializer_module.Serializer):
            serializer("_log", json.dumps(self._log))
        else:
            self._log = json.loads(serializer("_log", ""))
