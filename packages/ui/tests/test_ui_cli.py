"""The kusari-ui command line."""

from __future__ import annotations

from pathlib import Path

from flask.testing import FlaskCliRunner

from kusari_ui.cli import main


def test_db_and_project_commands(runner: FlaskCliRunner, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    r = runner.invoke(main, ["--db", url, "db", "create"])
    assert r.exit_code == 0 and "revision 0003" in r.output
    r = runner.invoke(main, ["--db", url, "db", "upgrade"])
    assert r.exit_code == 0 and "to 0003" in r.output
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


def _serve(runner: FlaskCliRunner, monkeypatch, url: str, *args: str, **kw_env: str):
    """Run ``kusari-ui server ARGS`` with Flask.run replaced; returns the CLI
    result and the app it would have served."""
    seen: dict = {}

    def fake_run(self, host, port, **kw):
        seen.update(app=self, host=host, port=port, **kw)

    monkeypatch.setattr("flask.Flask.run", fake_run)
    if "KUSARI_UI_TOKEN" not in kw_env:
        monkeypatch.delenv("KUSARI_UI_TOKEN", raising=False)
    r = runner.invoke(main, ["--db", url, "server", *args], env=kw_env)
    return r, seen


def test_server_runs_on_loopback(runner, tmp_path: Path, monkeypatch) -> None:
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    monkeypatch.delenv("KUSARI_UI_TOKEN", raising=False)
    r, seen = _serve(runner, monkeypatch, url, "--port", "5123")
    assert r.exit_code == 0, r.output
    assert seen["host"] == "127.0.0.1" and seen["port"] == 5123
    assert "token" not in r.output  # loopback: no token unless one is given
    client = seen["app"].test_client()
    assert client.get("/", headers={"Host": "evil.example:80"}).status_code == 400
    assert client.get("/", headers={"Host": "127.0.0.1:80"}).status_code == 200
    assert client.get("/", headers={"Host": "[::1]:5123"}).status_code == 200


def test_server_on_ipv6_loopback(runner, tmp_path: Path, monkeypatch) -> None:
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    r, seen = _serve(runner, monkeypatch, url, "--host", "::1", "--port", "5124")
    assert r.exit_code == 0, r.output
    assert "http://[::1]:5124/" in r.output
    client = seen["app"].test_client()
    resp = client.get("/api/v1/projects", headers={"Host": "[::1]:5124"})
    assert resp.status_code == 200, resp.json


def test_allow_remote_needs_trusted_hosts_and_a_token(
    runner, tmp_path: Path, monkeypatch
) -> None:
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    monkeypatch.delenv("KUSARI_UI_TOKEN", raising=False)
    r, _ = _serve(runner, monkeypatch, url, "--host", "0.0.0.0", "--allow-remote")
    assert r.exit_code == 2 and "--trusted-host" in r.output
    r, seen = _serve(
        runner,
        monkeypatch,
        url,
        "--host",
        "0.0.0.0",
        "--allow-remote",
        "--trusted-host",
        "ui.example.org",
    )
    assert r.exit_code == 0, r.output
    token = r.output.split("?token=")[1].split()[0]
    assert len(token) >= 24
    client = seen["app"].test_client()
    host = {"Host": "ui.example.org:5000"}
    # The Host check stays on beyond loopback: a rebinding name is refused.
    evil = client.get("/api/v1/projects", headers={"Host": "attacker.example"})
    assert (
        evil.status_code == 400 and "attacker.example" in evil.json["error"]["message"]
    )
    resp = client.get("/api/v1/projects", headers=host)
    assert resp.status_code == 401 and "token" in resp.json["error"]["message"]
    auth = {**host, "Authorization": f"Bearer {token}"}
    assert client.get("/api/v1/projects", headers=auth).status_code == 200


def test_given_token_roots_and_registration_switch(
    runner, tmp_path: Path, monkeypatch
) -> None:
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    root = tmp_path / "results"
    (root / "exp").mkdir(parents=True)
    r, seen = _serve(
        runner, monkeypatch, url, "--root", str(root), KUSARI_UI_TOKEN="s3cret-token"
    )
    assert r.exit_code == 0, r.output
    assert "s3cret-token" in r.output and str(root) in r.output
    app = seen["app"]
    assert app.config["PROJECT_ROOTS"] == [str(root.resolve())]
    client = app.test_client()
    hdr = {"X-Kusari-Token": "s3cret-token"}
    assert client.get("/api/v1/projects").status_code == 401
    ok = client.post("/api/v1/projects", json={"path": str(root / "exp")}, headers=hdr)
    assert ok.status_code == 201, ok.json
    out = client.post("/api/v1/projects", json={"path": str(tmp_path)}, headers=hdr)
    assert out.status_code == 403 and "--root" in out.json["error"]["message"]
    r, seen = _serve(
        runner,
        monkeypatch,
        url,
        "--no-api-registration",
        KUSARI_UI_TOKEN="s3cret-token",
    )
    assert r.exit_code == 0 and "API: off" in r.output
    client = seen["app"].test_client()
    resp = client.post("/api/v1/projects", json={"path": str(root)}, headers=hdr)
    assert resp.status_code == 403 and "switched off" in resp.json["error"]["message"]


def test_empty_token_is_refused(runner, tmp_path: Path, monkeypatch) -> None:
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    r, _ = _serve(runner, monkeypatch, url, "--token", " ")
    assert r.exit_code == 2 and "--token" in r.output
