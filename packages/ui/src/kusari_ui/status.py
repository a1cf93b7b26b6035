"""What the UI says about a run: its status, and whether it takes commands.

The job's own word wins: a ``kusari_ui_status.json`` written by
:class:`kusari_ui.extensions.CommandsExtension` says ``running``,
``stopping``, ``finished``, ``stopped`` or ``failed``. A run that said
``running`` but whose heartbeat is older than ``stale_seconds`` is
``stalled``. A run without a status file can only be judged by its log:
``active`` while the log keeps growing at its usual rhythm, ``idle`` once it
stopped; it is never called ``finished`` on a guess.

Example:
    >>> describe("folder", "unknown", {}, last_activity=0.0, log_interval=0.0,
    ...          now=1000.0).status
    'idle'
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

TERMINAL_STATES = ("finished", "stopped", "failed")
LIVE_STATES = ("running", "stopping")
STALE_SECONDS = 120.0
ACTIVE_SECONDS = 30.0
# A log is "still growing" for this many of its usual write intervals.
INTERVAL_SLACK = 3.0

NO_EXTENSION = (
    "this run has no CommandsExtension listening: add "
    "kusari_ui.extensions.CommandsExtension() to its trainer"
)


@dataclass(frozen=True)
class RunStatus:
    """A run's displayed status.

    Attributes:
        status: ``running``, ``stopping``, ``stalled``, ``finished``,
            ``stopped``, ``failed``, ``active``, ``idle``, ``missing`` or the
            job's own word for anything else.
        listening: A CommandsExtension reads commands right now.
        reason: Why commands cannot be sent (None when listening).
        error: The failure text of a ``failed`` run.
        heartbeat: The job's last heartbeat (UNIX time), if it has one.
    """

    status: str
    listening: bool
    reason: str | None
    error: str | None = None
    heartbeat: float | None = None


def parse_status_file(data: Any) -> dict[str, Any]:
    """Keep the fields of a status file the UI uses, type-checked.

    Example:
        >>> parse_status_file({"state": "failed", "error": "boom", "x": 1})
        {'state': 'failed', 'error': 'boom'}
    """
    if not isinstance(data, dict):
        return {}
    out: dict[str, Any] = {}
    state = data.get("state")
    if isinstance(state, str) and state:
        out["state"] = state[:32]
    beat = data.get("heartbeat")
    if isinstance(beat, int | float) and not isinstance(beat, bool):
        out["heartbeat"] = float(beat)
    for key in ("iteration", "epoch"):
        v = data.get(key)
        if isinstance(v, int) and not isinstance(v, bool):
            out[key] = v
    err = data.get("error")
    if isinstance(err, str):
        out["error"] = err[:2000]
    return out


def active_window(log_interval: float, active_seconds: float, stale: float) -> float:
    """Seconds a silent log still counts as growing.

    A few of the log's own write intervals, at least ``active_seconds`` (the
    crawler must have had time to see a write) and at most ``stale``.

    Example:
        >>> active_window(2.0, 30.0, 120.0), active_window(60.0, 30.0, 120.0)
        (30.0, 120.0)
    """
    if log_interval <= 0:
        return min(active_seconds, stale)
    return max(active_seconds, min(stale, INTERVAL_SLACK * log_interval))


def describe(
    source: str,
    stored: str,
    status_file: dict[str, Any],
    *,
    last_activity: float,
    log_interval: float,
    now: float,
    stale_seconds: float = STALE_SECONDS,
    active_seconds: float = ACTIVE_SECONDS,
) -> RunStatus:
    """The displayed status of a run.

    Args:
        source: ``folder`` (read from disk) or ``api`` (logged over HTTP).
        stored: The status column (``missing`` for a vanished folder; the
            client's word for HTTP runs).
        status_file: :func:`parse_status_file` of the job's status file.
        last_activity: When the log last grew (UNIX time).
        log_interval: Smoothed seconds between log writes (0: unknown).
        now: The current UNIX time.
        stale_seconds: Heartbeat age after which a running job is stalled.
        active_seconds: Shortest time a silent log still counts as growing.
    """
    if source != "folder":
        idle = now - last_activity > stale_seconds
        status = "stalled" if stored == "running" and idle else stored
        return RunStatus(status, False, "this run is logged over HTTP: no folder")
    if stored == "missing":
        return RunStatus("missing", False, "the run's folder is gone")
    state = status_file.get("state")
    beat = status_file.get("heartbeat")
    if state is not None:
        err = status_file.get("error") if state == "failed" else None
        if state in LIVE_STATES:
            age = None if beat is None else now - beat
            if age is not None and age <= stale_seconds:
                return RunStatus(state, True, None, heartbeat=beat)
            why = (
                "the job stopped sending heartbeats"
                if age is None
                else f"the job's last heartbeat was {age:.0f} s ago"
            )
            return RunStatus("stalled", False, why, heartbeat=beat)
        if state in TERMINAL_STATES:
            return RunStatus(state, False, f"the run has {state}", err, beat)
        return RunStatus(state, False, f"the job says {state!r}", heartbeat=beat)
    window = active_window(log_interval, active_seconds, stale_seconds)
    growing = last_activity > 0 and now - last_activity <= window
    return RunStatus("active" if growing else "idle", False, NO_EXTENSION)


def describe_result(result: Any, now: float, config: Any) -> RunStatus:
    """:func:`describe` for a :class:`~kusari_ui.models.Result` row."""
    try:
        status_file = json.loads(result.status_json or "{}")
    except ValueError:
        status_file = {}
    return describe(
        result.source,
        result.status,
        status_file if isinstance(status_file, dict) else {},
        last_activity=float(result.last_activity or 0.0),
        log_interval=float(result.log_interval or 0.0),
        now=now,
        stale_seconds=float(config.get("STALE_SECONDS", STALE_SECONDS)),
        active_seconds=float(config.get("ACTIVE_SECONDS", ACTIVE_SECONDS)),
    )
