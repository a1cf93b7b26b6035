"""The file protocol between the server and a running job.

Three JSON files in the run's result folder, each with a single writer and
replaced atomically (write to a temporary file, then ``os.replace``), so a
reader never sees half a file and the two sides never race on one file:

* ``kusari_ui_commands.json`` (server writes): list of requested commands,
  ``{"id", "name", "body", "requestedAt"}``.
* ``kusari_ui_responses.json`` (job writes): ``{id: {"status", "response",
  "respondedAt", "iteration", "epoch"}}``.
* ``kusari_ui_status.json`` (job writes): ``{"state", "heartbeat",
  "iteration", "epoch"}``.

Example:
    >>> cmd = request_command(run_dir, "stop")  # doctest: +SKIP
    >>> history(run_dir)[-1]["status"]  # doctest: +SKIP
    'pending'
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import tempfile
import threading
import uuid
from pathlib import Path
from typing import Any

from kusari_ui.safeio import read_regular

COMMANDS_FILE = "kusari_ui_commands.json"
RESPONSES_FILE = "kusari_ui_responses.json"
STATUS_FILE = "kusari_ui_status.json"
COMMAND_NAMES = ("take_snapshot", "stop", "adjust_hyperparams")
# Read cap of every protocol file (the job reads them with the same cap).
MAX_FILE_BYTES = 4 << 20
# Commands kept in the commands file; with the server's cap on one command
# (MAX_COMMAND_BYTES, 16 KiB) the file stays under a quarter of the read cap.
MAX_KEPT_COMMANDS = 64

_lock = threading.Lock()
_umask_lock = threading.Lock()


def now_iso() -> str:
    """Current UTC time in ISO 8601 with a ``Z`` suffix."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat().replace("+00:00", "Z")


def write_json_atomic(path: str | os.PathLike[str], data: Any) -> None:
    """Write ``data`` as JSON to ``path`` atomically.

    Example:
        >>> write_json_atomic("/tmp/x.json", {"a": 1})  # doctest: +SKIP
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix="." + path.name, dir=path.parent)
    try:
        # mkstemp makes the file 0600; give it the mode an open() would, so
        # a job and a UI running as different users can share the folder.
        os.chmod(tmp, 0o666 & ~_umask())
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, allow_nan=False)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask() -> int:
    with _umask_lock:  # os.umask can only be read by setting it
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def read_json(path: str | os.PathLike[str], default: Any) -> Any:
    """Read JSON from ``path``; ``default`` if missing or unreadable.

    Only a regular file is read (a FIFO in its place must not block the
    reader), and at most :data:`MAX_FILE_BYTES` of it.
    """
    try:
        return json.loads(read_regular(path, MAX_FILE_BYTES).decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return default


def read_commands(run_dir: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The commands requested for the run (oldest first)."""
    data = read_json(Path(run_dir) / COMMANDS_FILE, [])
    return [c for c in data if isinstance(c, dict)] if isinstance(data, list) else []


def read_responses(run_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """The job's responses, keyed by command id."""
    data = read_json(Path(run_dir) / RESPONSES_FILE, {})
    return data if isinstance(data, dict) else {}


def read_status(run_dir: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The job's status file, or None if the job never wrote one."""
    data = read_json(Path(run_dir) / STATUS_FILE, None)
    return data if isinstance(data, dict) else None


def request_command(
    run_dir: str | os.PathLike[str], name: str, body: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Append a command for the job to pick up; returns the new record.

    Example:
        >>> request_command(run_dir, "adjust_hyperparams",
        ...                 {"hyperparams": {"lr": 0.01}})  # doctest: +SKIP
    """
    if name not in COMMAND_NAMES:
        raise ValueError(f"unknown command {name!r}")
    record = {
        "id": uuid.uuid4().hex,
        "name": name,
        "body": body or {},
        "requestedAt": now_iso(),
    }
    with _lock:
        cmds = read_commands(run_dir)
        cmds.append(record)
        if len(cmds) > MAX_KEPT_COMMANDS:
            cmds = _trim(cmds, read_responses(run_dir))
        write_json_atomic(Path(run_dir) / COMMANDS_FILE, cmds)
    return record


def _trim(
    cmds: list[dict[str, Any]], responses: dict[str, Any]
) -> list[dict[str, Any]]:
    """The newest :data:`MAX_KEPT_COMMANDS` commands, dropping answered ones
    first: the file must stay well below the job's read cap, or the job
    would stop seeing a pending ``stop``."""
    excess = len(cmds) - MAX_KEPT_COMMANDS
    drop: set[int] = set()
    for i, c in enumerate(cmds[:-1]):
        if len(drop) >= excess:
            break
        if str(c.get("id")) in responses:
            drop.add(i)
    for i in range(len(cmds) - 1):
        if len(drop) >= excess:
            break
        drop.add(i)
    return [c for i, c in enumerate(cmds) if i not in drop]


def _parse_iso(text: Any) -> float | None:
    if not isinstance(text, str):
        return None
    try:
        t = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=_dt.timezone.utc)
    return t.timestamp()


def history(
    run_dir: str | os.PathLike[str],
    timeout: float | None = None,
    now: float | None = None,
) -> list[dict[str, Any]]:
    """Commands joined with their responses.

    A command without a response is ``pending``, or ``timed_out`` once it
    has waited longer than ``timeout`` seconds. That is decided here, when
    the history is read, and never written into the job's files: a job that
    answers late still gets its answer shown.

    Example:
        >>> history(run_dir, timeout=60.0)[-1]["status"]  # doctest: +SKIP
        'timed_out'
    """
    if now is None:
        now = _dt.datetime.now(_dt.timezone.utc).timestamp()
    responses = read_responses(run_dir)
    out = []
    for c in read_commands(run_dir):
        r = responses.get(str(c.get("id")))
        item = dict(c)
        if isinstance(r, dict):
            item.update(
                status=r.get("status", "done"),
                response=r.get("response"),
                respondedAt=r.get("respondedAt"),
                iteration=r.get("iteration"),
                epoch=r.get("epoch"),
            )
        else:
            asked = _parse_iso(c.get("requestedAt"))
            late = timeout is not None and asked is not None and now - asked > timeout
            item.update(
                status="timed_out" if late else "pending",
                response=None,
                respondedAt=None,
            )
        out.append(item)
    return out
