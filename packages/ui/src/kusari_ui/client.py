"""Log from any training loop (not only a Trainer) to a kusari-ui server.

Runs logged this way live in the server's database; they need no folder.
Network failures while logging are logged and swallowed, so a UI outage
never kills a training job.

Example:
    >>> from kusari_ui import client
    >>> run = client.init("http://127.0.0.1:5000", "mnist", "mlp-lr0.1",
    ...                   args={"lr": 0.1})  # doctest: +SKIP
    >>> for it in range(1, 101):  # doctest: +SKIP
    ...     client.log({"iteration": it, "main/loss": 1.0 / it})
    >>> client.finish()  # doctest: +SKIP
"""

from __future__ import annotations

import json
import logging
import math
import os
import urllib.error
import urllib.request
from typing import Any

logger = logging.getLogger(__name__)

_current: Run | None = None
TOKEN_ENV = "KUSARI_UI_TOKEN"


def _plain(value: Any) -> Any:
    """JSON-ready value: numpy scalars become floats, non-finite become None."""
    if isinstance(value, bool | str) or value is None:
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if hasattr(value, "item"):
        return _plain(value.item())
    try:
        return _plain(float(value))
    except (TypeError, ValueError):
        return str(value)


class ClientError(RuntimeError):
    """The server rejected a request (the message carries its JSON error)."""


class Run:
    """A run on the server; :meth:`log` appends entries to it.

    Args:
        url: Server root, e.g. ``http://127.0.0.1:5000``.
        project: Project name (created without a folder if new).
        run: Run name (reused if it exists: entries are appended).
        args: Run arguments shown as table columns.
        timeout: Seconds per HTTP request.
        batch: Entries buffered before a request is sent (1 = send each).
        token: The server's access token (default: ``$KUSARI_UI_TOKEN``);
            needed when the server runs with ``--token`` or ``--allow-remote``.
    """

    def __init__(
        self,
        url: str,
        project: str,
        run: str,
        args: dict[str, Any] | None = None,
        timeout: float = 10.0,
        batch: int = 1,
        token: str | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self._token = token if token is not None else os.environ.get(TOKEN_ENV)
        self.timeout = timeout
        self.batch = max(1, batch)
        self._buffer: list[dict[str, Any]] = []
        body = {
            "project": project,
            "run": run,
            "args": {str(k): _plain(v) for k, v in (args or {}).items()},
        }
        data = self._request("POST", "/api/v1/client/runs", body)
        self.project_id: int = data["project"]["id"]
        self.result_id: int = data["result"]["id"]

    def _request(self, method: str, path: str, body: Any) -> Any:
        headers = {"Content-Type": "application/json"}
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        req = urllib.request.Request(
            self.url + path,
            data=json.dumps(body, allow_nan=False).encode(),
            method=method,
            headers=headers,
        )
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.loads(resp.read().decode())
        except urllib.error.HTTPError as exc:
            with exc:  # close the error's response: no leaked socket
                detail = exc.read(2000).decode(errors="replace")
            raise ClientError(f"{method} {path}: HTTP {exc.code}: {detail}") from None

    @property
    def _base(self) -> str:
        return f"/api/v1/projects/{self.project_id}/results/{self.result_id}"

    def log(self, entry: dict[str, Any]) -> None:
        """Append one entry (a dict of metric name to number)."""
        self._buffer.append({str(k): _plain(v) for k, v in entry.items()})
        if len(self._buffer) >= self.batch:
            self.flush()

    def flush(self) -> None:
        """Send buffered entries now."""
        if not self._buffer:
            return
        entries, self._buffer = self._buffer, []
        try:
            self._request("POST", self._base + "/logs", {"entries": entries})
        except (OSError, urllib.error.URLError, ValueError) as exc:
            logger.warning(
                "kusari-ui: could not send %d entries: %s", len(entries), exc
            )

    def finish(self, status: str = "finished") -> None:
        """Flush and mark the run ``finished`` (or ``failed``/``stopped``)."""
        self.flush()
        try:
            self._request("PATCH", self._base, {"status": status})
        except (OSError, ValueError, ClientError) as exc:
            logger.warning("kusari-ui: could not set status: %s", exc)


def init(
    url: str, project: str, run: str, args: dict[str, Any] | None = None, **kwargs: Any
) -> Run:
    """Start (or resume) logging ``run`` of ``project``; see :class:`Run`.

    Example:
        >>> init("http://127.0.0.1:5000", "demo", "run1")  # doctest: +SKIP
    """
    global _current
    _current = Run(url, project, run, args, **kwargs)
    return _current


def _run() -> Run:
    if _current is None:
        raise RuntimeError("call kusari_ui.client.init(url, project, run) first")
    return _current


def log(entry: dict[str, Any]) -> None:
    """Append ``entry`` to the run started by :func:`init`.

    Example:
        >>> log({"epoch": 1, "main/loss": 0.3})  # doctest: +SKIP
    """
    _run().log(entry)


def finish(status: str = "finished") -> None:
    """Flush and close the run started by :func:`init`."""
    _run().finish(status)
