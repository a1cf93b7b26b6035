"""Shared fixtures: ``app``, ``client``, ``runner`` (temp DB per test), run
folders written the way kusari's LogReport writes them, and a live server."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner
from ui_testing import LiveServer, make_entries, write_log

from kusari_ui import create_app


@pytest.fixture
def make_run(tmp_path: Path) -> Callable[..., Path]:
    """Create ``tmp_path/project/<name>`` with a log and args."""

    def _make(
        name: str,
        n: int = 50,
        args: dict[str, Any] | None = None,
        root: Path | None = None,
    ) -> Path:
        run = (root or tmp_path / "project") / name
        run.mkdir(parents=True, exist_ok=True)
        write_log(run / "log", make_entries(n))
        (run / "args").write_text(json.dumps(args if args is not None else {"lr": 0.1}))
        return run

    return _make


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir(exist_ok=True)
    return path


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    app = create_app(
        {
            "TESTING": True,
            "DATABASE_URL": f"sqlite:///{tmp_path / 'ui.sqlite'}",
            # The API may register folders under the test's own tmp_path only.
            "PROJECT_ROOTS": [tmp_path],
        }
    )
    yield app
    app.extensions["kusari_ui"]["engine"].dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def runner(app: Flask) -> FlaskCliRunner:
    return app.test_cli_runner()


@pytest.fixture
def project(client: FlaskClient, project_dir: Path) -> dict[str, Any]:
    """A registered project over ``project_dir``."""
    resp = client.post("/api/v1/projects", json={"path": str(project_dir), "name": "p"})
    assert resp.status_code == 201, resp.json
    data: dict[str, Any] = resp.json["project"]  # type: ignore[index]
    return data


@pytest.fixture
def live_server(app: Flask) -> Iterator[LiveServer]:
    server = LiveServer(app)
    yield server
    server.stop()
