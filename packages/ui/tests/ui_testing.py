"""Helpers shared by the kusari-ui tests (imported by conftest and tests)."""

from __future__ import annotations

import json
import math
import os
import threading
import time
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from werkzeug.serving import make_server


def make_entries(n: int, start: int = 0, per_epoch: int = 10) -> list[dict[str, Any]]:
    """LogReport-like entries with a decreasing loss and rising accuracy."""
    return [
        {
            "main/loss": 1.0 / (i + 1) + 0.01 * math.sin(i),
            "main/accuracy": 1.0 - 1.0 / (i + 2),
            "validation/main/loss": 1.2 / (i + 1),
            "validation/main/accuracy": 0.9 - 0.5 / (i + 2),
            "epoch": (i + 1) // per_epoch,
            "iteration": (i + 1),
            "elapsed_time": 0.25 * (i + 1),
        }
        for i in range(start, start + n)
    ]


def write_log(path: Path, entries: list[dict[str, Any]]) -> None:
    """Write ``entries`` like LogReport: whole file, indent 4, atomic rename."""
    tmp = path.with_name("." + path.name + ".tmp")
    tmp.write_text(json.dumps(entries, indent=4))
    tmp.replace(path)


def crawl(client: FlaskClient, project_id: int) -> dict[str, Any]:
    resp = client.post(f"/api/v1/projects/{project_id}/crawl")
    assert resp.status_code == 200, resp.json
    data: dict[str, Any] = resp.json  # type: ignore[assignment]
    return data


class LiveServer:
    """A real HTTP server for ``app`` on 127.0.0.1 and a free port."""

    def __init__(self, app: Flask) -> None:
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


def write_status(run: Path, state: str, age: float = 0.0, **extra: Any) -> None:
    """Write the job's status file as CommandsExtension does, ``age`` s old."""
    from kusari_ui import commands as cmd_files

    data = {"state": state, "heartbeat": time.time() - age, "iteration": 3, **extra}
    cmd_files.write_json_atomic(run / cmd_files.STATUS_FILE, data)


def set_mtime(path: Path, age: float) -> None:
    """Make ``path`` look last written ``age`` seconds ago."""
    t = time.time() - age
    os.utime(path, (t, t))
