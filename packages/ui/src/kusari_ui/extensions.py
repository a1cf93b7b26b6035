"""Trainer extension that lets the UI steer a running job.

The extension reads commands the server writes into the run's result folder
(:mod:`kusari_ui.commands`) and answers in a file of its own; it needs no
network and the server never imports kusari. kusari itself is imported only
when a snapshot is taken.

Example:
    >>> from kusari.training import Trainer  # doctest: +SKIP
    >>> from kusari_ui.extensions import CommandsExtension
    >>> trainer.extend(CommandsExtension())  # doctest: +SKIP
    >>> trainer.run()  # doctest: +SKIP
"""

from __future__ import annotations

import importlib
import logging
import math
import os
import time
import types
from collections.abc import Callable
from typing import Any

from kusari_ui import commands as cmd_files

logger = logging.getLogger(__name__)


def _position(trainer: Any) -> dict[str, Any]:
    updater = getattr(trainer, "updater", None)
    return {
        "iteration": getattr(updater, "iteration", None),
        "epoch": getattr(updater, "epoch", None),
    }


def _default_snapshot() -> Callable[[Any], Any]:
    # Imported by name so neither importing this module nor type checking it
    # needs kusari.
    kusari_extensions: Any = importlib.import_module("kusari.training.extensions")
    ext: Callable[[Any], Any] = kusari_extensions.snapshot()
    return ext


def _make_stoppable(trigger: Any, ext: CommandsExtension) -> bool:
    """Make the trigger object itself fire once a stop is requested.

    Swapping in a subclass (same state, one extra check in ``__call__``)
    covers a Trainer that took its own reference to the stop trigger before
    calling ``initialize``, which replacing ``trainer.stop_trigger`` cannot.
    """
    cls = type(trigger)
    if getattr(trigger, "_kusari_ui_ext", None) is not None:
        trigger._kusari_ui_ext = ext
        return True
    if not hasattr(trigger, "__dict__") or isinstance(
        trigger, types.FunctionType | types.MethodType | types.BuiltinFunctionType
    ):
        return False
    base_call = cls.__call__

    def __call__(self: Any, trainer: Any) -> Any:
        owner = self.__dict__.get("_kusari_ui_ext")
        if owner is not None and owner.stop_requested:
            return True
        return base_call(self, trainer)

    try:
        sub = type(
            cls.__name__, (cls,), {"__call__": __call__, "__module__": cls.__module__}
        )
        trigger.__class__ = sub
        trigger._kusari_ui_ext = ext
    except TypeError:
        return False
    return True


class _StopTrigger:
    """Wraps the trainer's stop trigger; fires early once stop is requested."""

    def __init__(self, inner: Any, ext: CommandsExtension) -> None:
        self.inner = inner
        self.ext = ext

    def __call__(self, trainer: Any) -> bool:
        return bool(self.ext.stop_requested or self.inner(trainer))

    def __getattr__(self, name: str) -> Any:
        # ProgressBar & co. ask the stop trigger for get_training_length().
        return getattr(self.inner, name)


class CommandsExtension:
    """Executes ``stop``, ``take_snapshot`` and ``adjust_hyperparams`` commands.

    Follows Chainer v7's Extension protocol (``trigger``, ``priority``,
    ``__call__(trainer)``, ``initialize``, ``finalize``) without subclassing,
    so importing it does not import kusari.

    Args:
        trigger: How often to look for commands (a cheap ``stat`` per call).
        heartbeat: Seconds between status-file refreshes while training.
        snapshot_factory: Builds the extension called by ``take_snapshot``;
            defaults to ``kusari.training.extensions.snapshot()``.
        comm: For a job of several processes (a kusari-mn communicator, or
            anything with ``rank`` and ``bcast_obj``): add the extension on
            every rank. Rank 0 reads the commands and writes the status and
            responses; each command is broadcast, so ``stop`` and
            ``adjust_hyperparams`` act on every rank in the same iteration
            (``take_snapshot`` runs on rank 0). The broadcast is a collective
            call: every rank must use the same ``trigger``.

    Example:
        >>> ext = CommandsExtension(trigger=(1, "iteration"))
        >>> trainer.extend(ext)  # doctest: +SKIP
    """

    name = "kusari_ui_commands"
    default_name = "kusari_ui_commands"
    priority = 200  # Chainer's PRIORITY_EDITOR: it edits optimizer state

    def __init__(
        self,
        trigger: Any = (1, "iteration"),
        heartbeat: float = 5.0,
        snapshot_factory: Callable[[], Callable[[Any], Any]] | None = None,
        comm: Any = None,
    ) -> None:
        self.trigger = trigger
        self.comm = comm
        # Only one process writes the protocol files.
        self._writer = comm is None or int(comm.rank) == 0
        self.heartbeat = heartbeat
        self.snapshot_factory = snapshot_factory or _default_snapshot
        self.stop_requested = False
        self._snapshot: Callable[[Any], Any] | None = None
        self._seen: tuple[int, int] | None = None
        self._responses: dict[str, Any] = {}
        self._last_beat = 0.0
        self._out: str | None = None
        self._trainer: Any = None
        self._failure: str | None = None

    # -- Extension protocol ------------------------------------------------
    def initialize(self, trainer: Any) -> None:
        """Wrap the stop trigger and announce the run as running."""
        self._out = str(trainer.out)
        self._trainer = trainer
        if self._writer:
            os.makedirs(self._out, exist_ok=True)
            self._responses = cmd_files.read_responses(self._out)
        if not callable(getattr(trainer, "request_stop", None)):
            # A Trainer without kusari's public stop request (Chainer's own):
            # two ways in, as Trainers differ in when they read stop_trigger:
            # make the trigger object itself stoppable, and also wrap it.
            _make_stoppable(trainer.stop_trigger, self)
            if not isinstance(trainer.stop_trigger, _StopTrigger):
                trainer.stop_trigger = _StopTrigger(trainer.stop_trigger, self)
        if self._writer:
            self._write_status(trainer, "running")

    def __call__(self, trainer: Any) -> None:
        """Run any new command; refresh the heartbeat now and then."""
        if self._out is None:
            self.initialize(trainer)
        new = self._new_commands() if self._writer else None
        if self.comm is not None:
            new = self.comm.bcast_obj(new, root=0)
        for cid, cmd in new or ():
            self._execute(trainer, cid, cmd)
        if self._writer and time.time() - self._last_beat >= self.heartbeat:
            self._write_status(
                trainer, "stopping" if self.stop_requested else "running"
            )

    def _new_commands(self) -> list[tuple[str, dict[str, Any]]]:
        """Commands not answered yet; a ``stat`` when the file is unchanged."""
        assert self._out is not None
        path = os.path.join(self._out, cmd_files.COMMANDS_FILE)
        try:
            st = os.stat(path)
            seen: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except OSError:
            seen = None
        if seen is None or seen == self._seen:
            return []
        self._seen = seen
        return [
            (str(cmd.get("id")), cmd)
            for cmd in cmd_files.read_commands(self._out)
            if str(cmd.get("id")) not in self._responses
        ]

    def on_error(self, trainer: Any, exc: BaseException, tb: Any = None) -> None:
        """Remember why training failed (Chainer's Trainer calls this before
        ``finalize`` when the loop raised)."""
        self._failure = f"{type(exc).__name__}: {exc}"[:2000]

    def finalize(self, trainer: Any = None) -> None:
        """Mark the run finished, stopped (by the UI) or failed (it raised)."""
        if self._out is not None and self._writer:
            if self._failure is not None:
                state, extra = "failed", {"error": self._failure}
            else:
                state = "stopped" if self.stop_requested else "finished"
                extra = {}
            self._write_status(trainer or self._trainer, state, **extra)

    # -- commands ----------------------------------------------------------
    def _execute(self, trainer: Any, cid: str, cmd: dict[str, Any]) -> None:
        name = cmd.get("name")
        raw_body = cmd.get("body")
        body: dict[str, Any] = raw_body if isinstance(raw_body, dict) else {}
        try:
            if name == "stop":
                self.stop_requested = True
                request_stop = getattr(trainer, "request_stop", None)
                if callable(request_stop):
                    request_stop()
                response: Any = {"message": "training will stop after this iteration"}
            elif name == "take_snapshot":
                response = self._take_snapshot(trainer) if self._writer else None
            elif name == "adjust_hyperparams":
                response = self._adjust(trainer, body)
            else:
                raise ValueError(f"unknown command {name!r}")
            status = "done"
        except Exception as exc:  # report any failure to the UI, keep training
            logger.warning("kusari-ui command %s failed: %s", name, exc)
            response, status = {"error": f"{type(exc).__name__}: {exc}"}, "error"
        self._responses[cid] = {
            "status": status,
            "response": response,
            "respondedAt": cmd_files.now_iso(),
            **_position(trainer),
        }
        assert self._out is not None
        if self._writer:
            cmd_files.write_json_atomic(
                os.path.join(self._out, cmd_files.RESPONSES_FILE), self._responses
            )

    def _take_snapshot(self, trainer: Any) -> dict[str, Any]:
        if self._snapshot is None:
            self._snapshot = self.snapshot_factory()
        before = set(os.listdir(trainer.out))
        self._snapshot(trainer)
        new = sorted(set(os.listdir(trainer.out)) - before)
        return {"files": [n for n in new if not n.startswith(".")]}

    def _adjust(self, trainer: Any, body: dict[str, Any]) -> dict[str, Any]:
        hyperparams = body.get("hyperparams")
        if not isinstance(hyperparams, dict) or not hyperparams:
            raise ValueError("body.hyperparams must be a non-empty object")
        optimizer = trainer.updater.get_optimizer(str(body.get("optimizer", "main")))
        declared = _declared_hyperparams(optimizer)
        # Check everything first: a command applies fully or not at all.
        for key, value in hyperparams.items():
            if key not in declared:
                raise ValueError(
                    f"optimizer has no hyperparameter {key!r}; it has "
                    f"{', '.join(sorted(declared)) or 'none'}"
                )
            if (
                not isinstance(value, int | float)
                or isinstance(value, bool)
                or not math.isfinite(value)
                or abs(value) > _MAX_HYPERPARAM
            ):
                raise ValueError(
                    f"hyperparameter {key!r} must be a finite number with "
                    f"|value| <= {_MAX_HYPERPARAM:g}, got {value!r}"
                )
        hp = optimizer.hyperparam
        changes: dict[str, Any] = {}
        for key, value in hyperparams.items():
            old = getattr(hp, key)
            new = (
                int(value)
                if isinstance(old, int) and float(value).is_integer()
                else (float(value))
            )
            setattr(hp, key, new)
            changes[key] = {"old": _jsonable(old), "new": new}
        return changes

    def _write_status(self, trainer: Any, state: str, **extra: Any) -> None:
        self._last_beat = time.time()
        if self._out is None:
            return
        data = {
            "state": state,
            "heartbeat": self._last_beat,
            **_position(trainer),
            **extra,
        }
        try:
            cmd_files.write_json_atomic(
                os.path.join(self._out, cmd_files.STATUS_FILE), data
            )
        except OSError as exc:  # a full disk must not stop training
            logger.warning("kusari-ui: cannot write status: %s", exc)


# Larger magnitudes are typos, not hyperparameters; refused with a message.
_MAX_HYPERPARAM = 1e6


def _declared_hyperparams(optimizer: Any) -> set[str]:
    """The optimizer's own numeric hyperparameters (``optimizer.hyperparam``);
    nothing else of the optimizer may be set from the UI."""
    hp = getattr(optimizer, "hyperparam", None)
    if hp is None:
        return set()
    get_dict = getattr(hp, "get_dict", None)
    values = get_dict() if callable(get_dict) else vars(hp)
    return {
        k
        for k, v in values.items()
        if not k.startswith("_")
        and isinstance(_jsonable(v), int | float)
        and not isinstance(v, bool)
    }


def _jsonable(value: Any) -> Any:
    if hasattr(value, "item"):
        value = value.item()
    return (
        value
        if isinstance(value, int | float | str | bool) or value is None
        else str(value)
    )
