"""Trainer: the training loop that runs an updater and extensions."""

from __future__ import annotations

import collections
import os
import sys
import time
import traceback
from typing import Any

from kusari import reporter as reporter_module
from kusari import serializer as serializer_module
from kusari.training import extension as extension_module
from kusari.training.util import get_trigger


class _ExtensionEntry:
    def __init__(
        self, extension: Any, priority: int, trigger: Any, call_before_training: bool
    ) -> None:
        self.extension = extension
        self.trigger = trigger
        self.priority = priority
        self.call_before_training = call_before_training

    def __repr__(self) -> str:
        return (
            f"_ExtensionEntry({self.extension!r}, priority={self.priority}, "
            f"trigger={self.trigger!r})"
        )


class Trainer:
    """Run ``updater.update()`` until ``stop_trigger`` fires, calling the
    extensions whose triggers fire after each update.

    Args:
        updater: The updater (e.g. :class:`~kusari.training.updaters.StandardUpdater`).
        stop_trigger: When to stop: a trigger or a ``(period, unit)`` tuple;
            None never stops.
        out: Output directory of extensions (logs, snapshots).
        extensions: Extensions to add with their defaults.

    Attributes:
        updater: The updater.
        stop_trigger: The stop trigger.
        out: The output directory.
        observation: The values reported in the current iteration.
        reporter: The :class:`~kusari.reporter.Reporter`; the optimizers'
            targets are registered as observers under their names
            (``main``, ``main/l1``, ...).
    """

    def __init__(
        self,
        updater: Any,
        stop_trigger: Any = None,
        out: str | os.PathLike[str] = "result",
        extensions: list[Any] | None = None,
    ) -> None:
        self.updater = updater
        self.stop_trigger = get_trigger(stop_trigger)
        self.observation: dict[str, Any] = {}
        self.out = os.fspath(out)
        reporter = reporter_module.Reporter()
        for name, optimizer in updater.get_all_optimizers().items():
            reporter.add_observer(name, optimizer.target)
            reporter.add_observers(name, optimizer.target.namedlinks(skipself=True))
        self.reporter = reporter
        self._done = False
        self._extensions: dict[str, _ExtensionEntry] = collections.OrderedDict()
        self._start_at: float | None = None
        self._snapshot_elapsed_time = 0.0
        self._final_elapsed_time: float | None = None
        self._stop_requested = False
        updater.connect_trainer(self)
        for ext in extensions or []:
            self.extend(ext)

    def __repr__(self) -> str:
        return (
            f"Trainer(updater={type(self.updater).__name__}, out={self.out!r}, "
            f"extensions={list(self._extensions)})"
        )

    @property
    def is_before_training(self) -> bool:
        """True before the first update."""
        return bool(self.updater.iteration == 0)

    @property
    def elapsed_time(self) -> float:
        """Seconds of training so far, including time before a resume."""
        if self._done:
            if self._final_elapsed_time is None:
                # Marked done without having run (tests do this to snapshot
                # a trainer): only the time restored from a snapshot is known.
                return self._snapshot_elapsed_time
            return self._final_elapsed_time
        if self._start_at is None:
            raise RuntimeError("training has not been started yet")
        return time.perf_counter() - self._start_at + self._snapshot_elapsed_time

    def extend(
        self,
        extension: Any,
        name: str | None = None,
        trigger: Any = None,
        priority: int | None = None,
        *,
        call_before_training: bool = False,
    ) -> None:
        """Register an extension.

        Args:
            extension: The extension (a callable taking the trainer).
            name: Its name; ``extension.name``, ``default_name`` or
                ``__name__`` by default. A taken name gets ``_1``, ``_2``...
            trigger: When to call it; ``extension.trigger`` by default.
            priority: Higher runs first; ``extension.priority`` by default.
            call_before_training: Also call it once before the first update.
        """
        if name is None:
            name = getattr(extension, "name", None)
        if name is None:
            name = getattr(extension, "default_name", None)
        if name is None:
            name = getattr(extension, "__name__", None)
        if name is None:
            raise TypeError("the extension has no name; pass name=")
        if name == "training":
            raise ValueError('"training" is reserved and cannot name an extension')
        if trigger is None:
            trigger = getattr(extension, "trigger", (1, "iteration"))
        trigger = get_trigger(trigger)
        if priority is None:
            priority = getattr(extension, "priority", extension_module.PRIORITY_READER)
        unique = name
        ordinal = 0
        while unique in self._extensions:
            ordinal += 1
            unique = f"{name}_{ordinal}"
        extension.name = unique
        self._extensions[unique] = _ExtensionEntry(
            extension, priority, trigger, call_before_training
        )

    def request_stop(self) -> None:
        """Ask the training loop to end after the current iteration.

        Extensions still run for that iteration, then ``finalize`` as after a
        normal end; safe to call from an extension or another thread.

        Example:
            >>> from kusari import testing
            >>> trainer = testing.get_trainer_with_mock_updater((100, 'iteration'))
            >>> def stop_at_3(t):
            ...     if t.updater.iteration == 3:
            ...         t.request_stop()
            >>> trainer.extend(stop_at_3)
            >>> trainer.run()
            >>> trainer.updater.iteration
            3
        """
        self._stop_requested = True

    @property
    def stop_requested(self) -> bool:
        """Whether :meth:`request_stop` was called."""
        return self._stop_requested

    def get_extension(self, name: str) -> Any:
        """The extension registered as ``name``."""
        if name not in self._extensions:
            raise ValueError(f"extension {name!r} not found")
        return self._extensions[name].extension

    def run(self, show_loop_exception_msg: bool = True) -> None:
        """Run the training loop.

        Args:
            show_loop_exception_msg: Print the exception and traceback of a
                failing loop before finalizing the extensions.
        """
        if self._done:
            raise RuntimeError("cannot run a trainer's training loop twice")
        os.makedirs(self.out, exist_ok=True)
        names = sorted(
            self._extensions, key=lambda n: self._extensions[n].priority, reverse=True
        )
        extensions = [(n, self._extensions[n]) for n in names]
        self._start_at = time.perf_counter()
        # Extensions that restore state (autoloading snapshots) go first, so
        # every other initializer sees the restored state (e.g. a
        # learning-rate shift re-applies its value).
        loaders_first = sorted(
            extensions,
            key=lambda item: not getattr(item[1].extension, "restores_state", False),
        )
        for _, entry in loaders_first:
            initializer = getattr(entry.extension, "initialize", None)
            if initializer and not getattr(entry.trigger, "finished", False):
                initializer(self)

        update = self.updater.update
        reporter = self.reporter
        stop_trigger = self.stop_trigger
        try:
            self.observation = {}
            with reporter.scope(self.observation):
                for _, entry in extensions:
                    if entry.call_before_training:
                        entry.extension(self)
            while not (self._stop_requested or stop_trigger(self)):
                self.observation = {}
                with reporter.scope(self.observation):
                    update()
                    for _, entry in extensions:
                        if entry.trigger(self):
                            entry.extension(self)
        except Exception as e:
            if show_loop_exception_msg:
                print(f"Exception in main training loop: {e}", file=sys.stderr)
                print("Traceback (most recent call last):", file=sys.stderr)
                traceback.print_tb(sys.exc_info()[2])
                print(
                    "Will finalize trainer extensions and updater before "
                    "reraising the exception.",
                    file=sys.stderr,
                )
            for _, entry in extensions:
                handler = getattr(entry.extension, "on_error", None)
                if handler:
                    try:
                        handler(self, e, sys.exc_info()[2])
                    except Exception as he:  # report and keep finalizing
                        print(f"Exception in error handler: {he}", file=sys.stderr)
            raise
        finally:
            for _, entry in extensions:
                finalize = getattr(entry.extension, "finalize", None)
                if finalize:
                    finalize()
            self.updater.finalize()
        self._final_elapsed_time = self.elapsed_time
        self._done = True

    def serialize(self, serializer: Any) -> None:
        """Save or load the updater, the triggers, the extensions and the
        elapsed time."""
        self.updater.serialize(serializer["updater"])
        if hasattr(self.stop_trigger, "serialize"):
            self.stop_trigger.serialize(serializer["stop_trigger"])
        s = serializer["extensions"]
        t = serializer["extension_triggers"]
        for name, entry in self._extensions.items():
            if hasattr(entry.extension, "serialize"):
                entry.extension.serialize(s[name])
            if hasattr(entry.trigger, "serialize"):
                entry.trigger.serialize(t[name])
        if isinstance(serializer, serializer_module.Serializer):
            elapsed = (
                self._snapshot_elapsed_time
                if self._start_at is None and not self._done
                else self.elapsed_time
            )
            serializer("_snapshot_elapsed_time", elapsed)
        else:
            self._snapshot_elapsed_time = serializer("_snapshot_elapsed_time", 0.0)
