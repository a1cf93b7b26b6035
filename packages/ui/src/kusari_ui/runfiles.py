"""Reading a run's own files for the crawler: its args, and the warnings
about what could not be read.

Warnings are kept per run in ``Result.warnings_json``: ``args`` and ``log``
(a sentence each, e.g. a FIFO where a file should be), and counts of the
log's undecodable bytes (``log_bad_bytes``, ``log_first_bad``) and skipped
entries (``log_skipped``), which start over when the log is replaced.
:func:`kusari_ui.api.common.run_warnings` words them for the API.
"""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path
from typing import Any

from kusari_ui.logreader import ReadResult, clean_text
from kusari_ui.models import Result
from kusari_ui.safeio import read_regular

logger = logging.getLogger("kusari_ui.crawler")

# An args file is a few hundred bytes; anything near this is not args.
MAX_ARGS_BYTES = 64 << 10
MAX_ARG_TEXT = 4096


def load_args(path: Path) -> tuple[dict[str, Any] | None, str]:
    """The run's args and a warning ("" if none).

    Only a regular file of at most :data:`MAX_ARGS_BYTES` is read: every
    runs-list response carries the args.
    """
    try:
        raw = read_regular(path, MAX_ARGS_BYTES + 1)
        if len(raw) > MAX_ARGS_BYTES:
            raise ValueError(f"larger than {MAX_ARGS_BYTES} bytes")
        data = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        logger.warning("%s: unreadable args (%s)", path, exc)
        return None, f"not read ({exc})"
    if not isinstance(data, dict):
        logger.warning("%s: args is not a JSON object", path)
        return None, "not a JSON object"
    args = {
        clean_text(str(k)): v
        if isinstance(v, int | float | bool) or v is None
        else clean_text(str(v))[:MAX_ARG_TEXT]
        for k, v in data.items()
        if not (isinstance(v, float) and not math.isfinite(v))
    }
    return args, ""


def read_warnings(result: Result) -> dict[str, Any]:
    """The run's stored warnings (see the module docstring)."""
    try:
        data = json.loads(result.warnings_json or "{}")
    except ValueError:
        data = {}
    return data if isinstance(data, dict) else {}


def write_warnings(result: Result, data: dict[str, Any]) -> None:
    """Store ``data`` on the run, dropping empty entries."""
    keep = {
        k: v
        for k, v in data.items()
        if v or (k == "log_first_bad" and data.get("log_bad_bytes"))
    }
    text = json.dumps(keep, sort_keys=True)
    if text != (result.warnings_json or "{}"):
        result.warnings_json = text


def note_read(warn: dict[str, Any], out: ReadResult) -> None:
    """Fold one read's problems into the run's warnings."""
    if out.reset:
        for key in ("log_bad_bytes", "log_first_bad", "log_skipped"):
            warn.pop(key, None)
    if out.bad_bytes:
        if not warn.get("log_bad_bytes"):
            warn["log_first_bad"] = out.first_bad
        warn["log_bad_bytes"] = int(warn.get("log_bad_bytes") or 0) + out.bad_bytes
    if out.skipped:
        warn["log_skipped"] = int(warn.get("log_skipped") or 0) + out.skipped
    warn["log"] = "; ".join(out.warnings)
