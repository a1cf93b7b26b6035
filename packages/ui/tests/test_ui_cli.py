"""The kusari-ui command line."""

from __future__ import annotations

from pathlib import Path

from flask.testing import FlaskCliRunner

from kusari_ui.cli import main


def test_db_and_project_commands(runner: FlaskCliRunner, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    r = runner.invoke(main, ["--db", url, "db", "create"])
    assert r.exit_code == 0 and "revision 0002" in r.output
    r = runner.invoke(main, ["--db", url, "db", "upgrade"])
    assert r.exit_code == 0 and "to 0002" in r.output
    (tmp_path / "res").mkdir()
    r = runner.invoke(
        main,
        ["--db", url, "project", "create", "-d", str(tmp_path / "res"), "-n", "mnist"],
    )
    assert r.exit_code == 0, r.output
    assert "'mnist'" in r.output
    r = runner.invoke(
        main, ["--db", url, "project", "create", "-d", str(tmp_path / "res")]
    )
    assert r.exit_code != 0 and "already a project" in r.output
    r = runner.invoke(
        main, ["--db", url, "project", "create", "-d", str(tmp_path / "no")]
    )
    assert r.exit_code != 0 and "does not exist" in r.output
    r = runner.invoke(main, ["--db", url, "project", "list"])
    assert "mnist" in r.output


def test_db_env_var(runner: FlaskCliRunner, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("KUSARI_UI_DB", f"sqlite:///{tmp_path / 'env.sqlite'}")
    assert runner.invoke(main, ["db", "create"]).exit_code == 0
    assert (tmp_path / "env.sqlite").exists()


def test_server_refuses_public_bind_without_flag(runner: FlaskCliRunner, tmp_path):
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    r = runner.invoke(main, ["--db", url, "server", "--host", "0.0.0.0"])
    assert r.exit_code == 2 and "--allow-remote" in r.output


def test_server_runs(runner: FlaskCliRunner, tmp_path: Path, monkeypatch) -> None:
    calls = {}

    def fake_run(self, host, port, **kw):
        calls.update(host=host, port=port, **kw)
        client = self.test_client()
        calls["evil"] = client.get("/", headers={"Host": "evil.example:80"}).status_code
        calls["local"] = client.get("/", headers={"Host": "127.0.0.1:80"}).status_code

    monkeypatch.setattr("flask.Flask.run", fake_run)
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    r = runner.invoke(main, ["--db", url, "server", "--port", "5123"])
    assert r.exit_code == 0, r.output
    assert calls["host"] == "127.0.0.1" and calls["port"] == 5123
    assert calls["evil"] == 400 and calls["local"] == 200  # DNS rebinding guard
    r = runner.invoke(
        main, ["--db", url, "server", "--host", "0.0.0.0", "--allow-remote"]
    )
    assert r.exit_code == 0 and calls["host"] == "0.0.0.0"
    assert calls["evil"] == 200  # serving beyond loopback: any Host name
