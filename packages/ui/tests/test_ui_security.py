"""Path traversal, symlinks, malformed input: the server keeps serving."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from ui_testing import crawl

from kusari_ui.paths import is_within, resolve_inside


def _base(client: FlaskClient, pid: int) -> str:
    rid = client.get(f"/api/v1/projects/{pid}/results").json["results"][0]["id"]
    return f"/api/v1/projects/{pid}/results/{rid}"


@pytest.mark.parametrize(
    "name",
    [
        "../../secret_snapshot",
        "..%2F..%2Fsecret_snapshot",
        "%2e%2e/%2e%2e/secret_snapshot",
        "snapshot/../../../secret_snapshot",
        "/etc/passwd",
        "snapshot_x%00",
        "..\\..\\secret_snapshot",
    ],
)
def test_snapshot_download_cannot_escape(
    client: FlaskClient, project, make_run, tmp_path: Path, name: str
) -> None:
    make_run("a")
    (tmp_path / "secret_snapshot").write_text("top secret")
    crawl(client, project["id"])
    r = client.get(
        _base(client, project["id"]) + "/snapshots/" + name, follow_redirects=True
    )
    assert r.status_code == 404
    assert b"top secret" not in r.data


def test_symlinked_snapshot_pointing_outside_is_not_served(
    client: FlaskClient, project, make_run, tmp_path: Path
) -> None:
    run = make_run("a")
    secret = tmp_path / "secret"
    secret.write_text("top secret")
    (run / "snapshot_evil").symlink_to(secret)
    crawl(client, project["id"])
    base = _base(client, project["id"])
    assert client.get(base + "/snapshots").json["snapshots"] == []
    r = client.get(base + "/snapshots/snapshot_evil")
    assert r.status_code == 404 and b"top secret" not in r.data


def test_symlinked_log_outside_project_is_not_read(
    client: FlaskClient, project, project_dir: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside_log"
    outside.write_text(json.dumps([{"secret": 42}]))
    run = project_dir / "r"
    run.mkdir()
    (run / "args").write_text("{}")
    (run / "log").symlink_to(outside)
    crawl(client, project["id"])
    res = client.get(f"/api/v1/projects/{project['id']}/results").json["results"]
    assert res[0]["nEntries"] == 0


def test_paths_helpers(tmp_path: Path) -> None:
    assert resolve_inside(tmp_path, "a", "..", "..", "x") is None
    assert resolve_inside(tmp_path, "/etc") is None
    assert resolve_inside(tmp_path, "a\x00") is None
    assert resolve_inside(tmp_path, "a") == tmp_path.resolve() / "a"
    assert not is_within(tmp_path / "ab", tmp_path / "abc")


def test_malformed_logs_keep_server_serving(
    client: FlaskClient, project, project_dir: Path, make_run, caplog
) -> None:
    make_run("good", n=5)
    payloads = {
        "broken": b'[{"iteration": 1, "main/loss": 0.5}, {"iteration": 2, "main/lo',
        "binary": bytes(range(256)) * 100,
        "huge": b'[{"iteration": 1, "x": 1e999, "y": -' + b"9" * 6000 + b"}]",
        "strings": b'[{"iteration": "one", "main/loss": "low", "ok": 1}]',
        "nested": b'[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]], {"iteration": 3}]',
        "deep": b"[" + b'{"a":' * 100000 + b"1" + b"}" * 100000 + b"]",
    }
    for name, data in payloads.items():
        d = project_dir / name
        d.mkdir()
        (d / "log").write_bytes(data)
    (project_dir / "good" / "args").write_bytes(b"\xff\xfe{}")
    with caplog.at_level(logging.WARNING):
        crawl(client, project["id"])
    rows = {
        r["name"]: r
        for r in client.get(f"/api/v1/projects/{project['id']}/results").json["results"]
    }
    assert rows["good"]["nEntries"] == 5
    assert rows["broken"]["nEntries"] == 1
    assert rows["binary"]["nEntries"] == 0
    assert rows["huge"]["lastValues"] == {"iteration": 1}
    assert rows["strings"]["lastValues"] == {"ok": 1}
    assert rows["nested"]["nEntries"] == 1
    assert rows["deep"]["nEntries"] == 0
    assert caplog.records  # each problem was logged
    pid = project["id"]
    r = client.get(f"/api/v1/projects/{pid}/series?keys=main/loss,x,y,ok")
    assert r.status_code == 200
    json.dumps(r.json, allow_nan=False)
