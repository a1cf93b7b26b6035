"""Who may talk to the server: host names, the token, origins, project roots."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from kusari_ui import create_app
from kusari_ui.access import cookie_name, host_allowed, normalize_host

TOKEN = "tok-" + "x" * 28


@pytest.mark.parametrize(
    ("header", "host"),
    [
        ("localhost", "localhost"),
        ("LOCALHOST:5000", "localhost"),
        ("127.0.0.1:80", "127.0.0.1"),
        ("[::1]:5000", "::1"),
        ("[::1]", "::1"),
        ("ui.example.org.", "ui.example.org"),
        ("[::1", None),
        ("::1:5000", None),  # IPv6 with a port must be bracketed
        ("host:port", None),
        ("ev<il>", None),
        ("", None),
    ],
)
def test_normalize_host(header: str, host: str | None) -> None:
    assert normalize_host(header) == host


def test_host_allowed_entries() -> None:
    assert host_allowed("::1", ["[::1]"]) and host_allowed("::1", ["::1"])
    assert host_allowed("a.example.org", [".example.org"])
    assert host_allowed("example.org", [".example.org"])
    assert not host_allowed("badexample.org", [".example.org"])
    assert host_allowed("ui.example.org", ["UI.example.org:8080"])
    assert not host_allowed("attacker.example", ["localhost", "127.0.0.1"])


def test_default_answers_loopback_names_only(client: FlaskClient) -> None:
    for host in ("localhost", "127.0.0.1:5000", "[::1]:5000"):
        assert client.get("/api/v1/projects", headers={"Host": host}).status_code == 200
    r = client.get("/api/v1/projects", headers={"Host": "attacker.example"})
    assert r.status_code == 400
    assert r.json["error"]["type"] == "bad_host"
    assert "attacker.example" in r.json["error"]["message"]


def test_flask_trusted_hosts_setting_is_taken_over(tmp_path: Path) -> None:
    app = create_app(
        {
            "DATABASE_URL": f"sqlite:///{tmp_path / 'a.sqlite'}",
            "TRUSTED_HOSTS": ["ui.example.org", "::1"],
        }
    )
    try:
        c = app.test_client()
        assert app.config["TRUSTED_HOSTS"] is None
        assert c.get("/", headers={"Host": "ui.example.org"}).status_code == 200
        assert c.get("/", headers={"Host": "[::1]:8000"}).status_code == 200
        assert c.get("/", headers={"Host": "localhost"}).status_code == 400
    finally:
        app.extensions["kusari_ui"]["engine"].dispose()


@pytest.fixture
def locked(app: Flask) -> FlaskClient:
    app.config["AUTH_TOKEN"] = TOKEN
    return app.test_client()


def test_token_required_on_every_api_call(locked: FlaskClient) -> None:
    for method, path in [
        ("GET", "/api/v1/projects"),
        ("POST", "/api/v1/projects"),
        ("GET", "/api/v1/projects/1/results/1/logs"),
        ("DELETE", "/api/v1/projects/1"),
        ("GET", "/api/v1/no-such-route"),
    ]:
        r = locked.open(path, method=method, json={})
        assert r.status_code == 401, (method, path)
        assert r.json["error"]["type"] == "unauthorized"
        assert "token" in r.json["error"]["message"]
    wrong = locked.get("/api/v1/projects", headers={"X-Kusari-Token": "nope"})
    assert wrong.status_code == 401


@pytest.mark.parametrize(
    ("headers", "query"),
    [
        ({"Authorization": f"Bearer {TOKEN}"}, ""),
        ({"Authorization": f"bearer {TOKEN}"}, ""),
        ({"X-Kusari-Token": TOKEN}, ""),
        ({}, f"?token={TOKEN}"),
    ],
)
def test_token_accepted_forms(locked: FlaskClient, headers, query: str) -> None:
    r = locked.get("/api/v1/projects" + query, headers=headers)
    assert r.status_code == 200, r.json


def test_page_token_becomes_a_cookie(locked: FlaskClient) -> None:
    page = locked.get("/")
    assert page.status_code == 401
    assert page.headers["WWW-Authenticate"] == "Bearer"
    assert b'name="token"' in page.data and b"access token" in page.data
    # The page's assets need no token (they are the package's own files).
    with locked.get("/static/common.js") as asset:
        assert asset.status_code == 200
    r = locked.get(f"/?token={TOKEN}")
    assert r.status_code == 303 and r.headers["Location"] == "/"
    cookie = r.headers["Set-Cookie"]
    assert cookie.startswith(cookie_name(TOKEN) + "=")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert TOKEN not in cookie  # the cookie holds a value derived from it
    # The cookie now opens the page and the API, as the page's fetch() does.
    assert locked.get("/").status_code == 200
    assert locked.get("/api/v1/projects").status_code == 200
    assert locked.get("/?token=wrong").status_code == 401


def test_cookie_of_another_token_is_refused(app: Flask) -> None:
    app.config["AUTH_TOKEN"] = TOKEN
    c = app.test_client()
    c.set_cookie(cookie_name(TOKEN), "forged")
    assert c.get("/api/v1/projects").status_code == 401


def test_cross_origin_writes_are_refused(client: FlaskClient, tmp_path: Path) -> None:
    (tmp_path / "res").mkdir()
    body = {"path": str(tmp_path / "res")}
    for origin in ("http://attacker.example", "null"):
        r = client.post("/api/v1/projects", json=body, headers={"Origin": origin})
        assert r.status_code == 403 and "cross-origin" in r.json["error"]["message"]
    r = client.post(
        "/api/v1/projects", json=body, headers={"Origin": "http://localhost:5000"}
    )
    assert r.status_code == 201, r.json
    # A form post (what a cross-site page can send) is still refused by type.
    r = client.post("/api/v1/projects", data={"path": str(tmp_path)})
    assert r.status_code == 415


def test_api_cannot_register_outside_the_roots(
    client: FlaskClient, tmp_path: Path
) -> None:
    r = client.post("/api/v1/projects", json={"path": "/etc"})
    assert r.status_code == 403
    assert r.json["error"]["type"] == "forbidden"
    assert "outside the folders" in r.json["error"]["message"]
    assert "--root" in r.json["error"]["message"]
    # Outside the roots nothing is revealed about what exists there.
    gone = client.post("/api/v1/projects", json={"path": "/no/such/dir"})
    assert gone.status_code == 403
    # A link inside the root that leads out of it is judged by its target.
    link = tmp_path / "link-to-etc"
    os.symlink("/etc", link)
    r = client.post("/api/v1/projects", json={"path": str(link)})
    assert r.status_code == 403
    r = client.post("/api/v1/projects", json={"path": str(tmp_path / "x" / "..")})
    assert r.status_code == 201, r.json


def test_roots_none_allows_any_folder(app: Flask, tmp_path: Path) -> None:
    app.config["PROJECT_ROOTS"] = None
    r = app.test_client().post("/api/v1/projects", json={"path": "/tmp"})
    assert r.status_code == 201, r.json


def test_server_default_root_is_its_directory(tmp_path: Path, monkeypatch) -> None:
    from click.testing import CliRunner

    from kusari_ui.cli import main

    seen: dict = {}
    monkeypatch.setattr("flask.Flask.run", lambda self, **kw: seen.update(app=self))
    (tmp_path / "here" / "run").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "here")
    url = f"sqlite:///{tmp_path / 'a.sqlite'}"
    r = CliRunner().invoke(main, ["--db", url, "server"])
    assert r.exit_code == 0, r.output
    app = seen["app"]
    assert app.config["PROJECT_ROOTS"] == [str((tmp_path / "here").resolve())]
    c = app.test_client()
    assert c.post("/api/v1/projects", json={"path": "run"}).status_code == 201
    r2 = c.post("/api/v1/projects", json={"path": str(tmp_path)})
    assert r2.status_code == 403
    app.extensions["kusari_ui"]["engine"].dispose()


def test_registration_can_be_switched_off(app: Flask, tmp_path: Path) -> None:
    app.config["ALLOW_API_REGISTRATION"] = False
    r = app.test_client().post("/api/v1/projects", json={"path": str(tmp_path)})
    assert r.status_code == 403
    assert "switched off" in r.json["error"]["message"]
    assert "project create" in r.json["error"]["message"]


def test_command_line_registration_is_not_limited(app: Flask) -> None:
    from kusari_ui.api.projects import create_project

    with app.app_context():
        assert create_project("/etc", "system").path == os.path.realpath("/etc")


def _has_ipv6_loopback() -> bool:
    import socket

    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
    except OSError:
        return False
    return True


# The Host check for "[::1]:port" runs everywhere (test client tests above);
# only the real socket needs the kernel's IPv6 loopback.
@pytest.mark.skipif(
    not _has_ipv6_loopback(), reason="this machine's kernel has no IPv6 loopback (::1)"
)
def test_real_server_on_ipv6_loopback(app: Flask) -> None:
    """``kusari-ui server --host ::1``: the Host header is ``[::1]:port``."""
    import threading
    import urllib.request

    from werkzeug.serving import make_server

    server = make_server("::1", 0, app, threaded=True)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    try:
        url = f"http://[::1]:{server.server_port}/api/v1/projects"
        with urllib.request.urlopen(url, timeout=10) as resp:
            assert resp.status == 200 and "projects" in resp.read().decode()
    finally:
        server.shutdown()
        server.server_close()
        t.join(5)
