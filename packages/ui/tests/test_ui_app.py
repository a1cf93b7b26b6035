"""The app factory and its independence from kusari."""

from __future__ import annotations

import subprocess
import sys

from flask import Flask


def test_server_and_extension_modules_do_not_import_kusari() -> None:
    code = (
        "import sys\n"
        "from kusari_ui import create_app, client, extensions, cli, crawler\n"
        "app = create_app({'DATABASE_URL': 'sqlite://'})\n"
        "app.test_client().get('/api/v1/projects')\n"
        "extensions.CommandsExtension()\n"
        "assert 'kusari' not in sys.modules, 'kusari was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_config_overrides(app: Flask) -> None:
    assert app.config["TESTING"] is True
    assert app.config["DATABASE_URL"].startswith("sqlite:///")
    assert "kusari_ui" in app.extensions


def test_internal_errors_use_the_envelope(app: Flask, monkeypatch, tmp_path) -> None:
    import kusari_ui.api.projects as projects

    def boom(*_a: object, **_k: object) -> None:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(projects, "project_json", boom)
    app.config["TESTING"] = False  # Flask would otherwise re-raise
    app.config["PROPAGATE_EXCEPTIONS"] = False
    r = app.test_client().post("/api/v1/projects", json={"path": str(tmp_path)})
    assert r.status_code == 500
    assert r.json == {
        "error": {"type": "internal_error", "message": "internal server error"}
    }
