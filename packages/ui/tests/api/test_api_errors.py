"""Every failure is a 4xx/5xx in the one JSON shape, with a message naming it."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from ui_testing import crawl, write_status

from kusari_ui import commands as cmd_files

BIG = 1 << 63


def _error(resp: Any, status: int) -> dict[str, str]:
    assert resp.status_code == status, (resp.status_code, resp.data[:300])
    err = resp.json["error"]
    assert set(err) == {"type", "message"} and err["message"]
    return err


def _listening_run(client: FlaskClient, project, make_run) -> tuple[str, Path]:
    run = make_run("a", n=3)
    write_status(run, "running")
    crawl(client, project["id"])
    rid = client.get(f"/api/v1/projects/{project['id']}/results").json["results"][0][
        "id"
    ]
    return f"/api/v1/projects/{project['id']}/results/{rid}", run


def test_body_over_max_content_length_is_413(app: Flask, client: FlaskClient):
    app.config["MAX_CONTENT_LENGTH"] = 1000
    body = json.dumps({"path": "x" * 2000})
    r = client.post(
        "/api/v1/projects", data=body, headers={"Content-Type": "application/json"}
    )
    err = _error(r, 413)
    assert "2" in err["message"] and "MAX_CONTENT_LENGTH" in err["message"]
    # Even a route that never reads its body refuses it.
    err = _error(client.post("/api/v1/projects/1/crawl", data=b"x" * 5000), 413)
    assert "limit of 1000 bytes" in err["message"]


def test_body_cap_holds_without_content_length(app: Flask, client: FlaskClient):
    app.config["MAX_CONTENT_LENGTH"] = 1000
    body = json.dumps({"path": "x" * 5000}).encode()
    r = client.post(
        "/api/v1/projects",
        input_stream=io.BytesIO(body),
        headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
        environ_overrides={"wsgi.input_terminated": True},
    )
    err = _error(r, 413)
    assert "MAX_CONTENT_LENGTH" in err["message"]


def test_args_over_cap_is_413(app: Flask, client: FlaskClient) -> None:
    app.config["MAX_ARGS_BYTES"] = 500
    body = {"project": "p", "run": "r", "args": {"blob": "x" * 600}}
    err = _error(client.post("/api/v1/client/runs", json=body), 413)
    assert "MAX_ARGS_BYTES" in err["message"]
    body["args"] = {"lr": 0.1}
    assert client.post("/api/v1/client/runs", json=body).status_code == 201


def test_command_payload_over_cap_is_413(
    app: Flask, client: FlaskClient, project, make_run
) -> None:
    base, run = _listening_run(client, project, make_run)
    hp = {f"h{i:05d}": 0.5 for i in range(2000)}
    body = {"name": "adjust_hyperparams", "body": {"hyperparams": hp}}
    err = _error(client.post(f"{base}/commands", json=body), 413)
    assert "MAX_COMMAND_BYTES" in err["message"]
    assert not (run / cmd_files.COMMANDS_FILE).exists()


def test_commands_file_stays_bounded(
    app: Flask, client: FlaskClient, project, make_run, monkeypatch
) -> None:
    # At the real limits the file stays far below what the job reads.
    most = cmd_files.MAX_KEPT_COMMANDS * (app.config["MAX_COMMAND_BYTES"] + 200)
    assert most < cmd_files.MAX_FILE_BYTES // 2
    monkeypatch.setattr(cmd_files, "MAX_KEPT_COMMANDS", 5)
    base, run = _listening_run(client, project, make_run)
    hp = {f"h{i:04d}": 0.5 for i in range(700)}  # ~10 KiB: under the cap
    for _ in range(8):
        body = {"name": "adjust_hyperparams", "body": {"hyperparams": hp}}
        assert client.post(f"{base}/commands", json=body).status_code == 201
    r = client.post(f"{base}/commands", json={"name": "stop"})
    assert r.status_code == 201
    cmds = cmd_files.read_commands(run)  # what the job reads: the stop is there
    assert len(cmds) == 5 and cmds[-1]["name"] == "stop"


def test_trim_drops_answered_commands_first() -> None:
    cmds = [{"id": str(i)} for i in range(cmd_files.MAX_KEPT_COMMANDS + 2)]
    kept = cmd_files._trim(cmds, {"5": {}, "7": {}})
    assert [c["id"] for c in kept] == [
        str(i) for i in range(len(cmds)) if i not in (5, 7)
    ]


def test_unwritable_run_folder_names_the_cause(
    client: FlaskClient, project, make_run, monkeypatch
) -> None:
    base, run = _listening_run(client, project, make_run)
    if os.geteuid() != 0:  # root ignores permission bits: simulate it then
        os.chmod(run, 0o555)
    else:

        def denied(path: Any, data: Any) -> None:
            raise PermissionError(13, "Permission denied", str(path))

        monkeypatch.setattr(cmd_files, "write_json_atomic", denied)
    try:
        err = _error(client.post(f"{base}/commands", json={"name": "stop"}), 403)
    finally:
        os.chmod(run, 0o755)
    assert err["type"] == "permission_denied"
    assert "write access" in err["message"] and "result" in err["message"]


def test_os_errors_elsewhere_use_the_envelope(
    client: FlaskClient, project, make_run, monkeypatch
) -> None:
    base, run = _listening_run(client, project, make_run)
    import kusari_ui.api.snapshots as snaps

    def denied(path: Any) -> Any:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(snaps.os, "scandir", denied)
    err = _error(client.get(f"{base}/snapshots"), 403)
    assert err["type"] == "permission_denied" and str(run) in err["message"]

    def broken(path: Any) -> Any:
        raise OSError(5, "Input/output error", str(path))

    monkeypatch.setattr(snaps.os, "scandir", broken)
    err = _error(client.get(f"{base}/snapshots"), 500)
    assert "Input/output error" in err["message"]


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/api/v1/projects", {"path": "a\x00b"}),
        ("POST", "/api/v1/projects", {"path": ".", "name": "a\x00"}),
        ("POST", "/api/v1/client/runs", {"project": "p\x00", "run": "r"}),
        ("POST", "/api/v1/client/runs", {"project": "p", "run": "\x00"}),
    ],
)
def test_nul_in_paths_and_names_is_400(
    client: FlaskClient, method: str, path: str, body: dict[str, Any]
) -> None:
    err = _error(client.open(path, method=method, json=body), 400)
    assert "NUL" in err["message"]


def test_nul_in_url_paths_is_404(client: FlaskClient, project, make_run) -> None:
    base, _ = _listening_run(client, project, make_run)
    _error(client.get(f"{base}/snapshots/snapshot%00x"), 404)
    r = client.get(f"/api/v1/projects/{project['id']}/series?keys=a%00b")
    assert "keys" in _error(r, 400)["message"]  # no stored metric has a NUL


def test_nul_in_names_on_patch(client: FlaskClient, project) -> None:
    r = client.patch(f"/api/v1/projects/{project['id']}", json={"name": "x\x00"})
    assert "NUL" in _error(r, 400)["message"]


def test_deeply_nested_json_is_400(client: FlaskClient) -> None:
    for body in (
        "[" * 100_000 + "]" * 100_000,
        '{"a":' * 100_000 + "1" + "}" * 100_000,
    ):
        r = client.post(
            "/api/v1/projects", data=body, headers={"Content-Type": "application/json"}
        )
        assert "deeply" in _error(r, 400)["message"]


def test_args_nesting_near_the_limit_is_400_not_500(client: FlaskClient) -> None:
    deep = "[" * 900 + "]" * 900
    body = '{"project": "p", "run": "r", "args": {"a": ' + deep + "}}"
    r = client.post(
        "/api/v1/client/runs", data=body, headers={"Content-Type": "application/json"}
    )
    assert r.status_code in (200, 201, 400), r.data[:200]


@pytest.mark.parametrize(
    "path",
    [
        f"/api/v1/projects/{BIG}",
        f"/api/v1/projects/{BIG * 4}/results",
        f"/api/v1/projects/1/results/{BIG}",
        f"/api/v1/projects/1/results/{BIG}/args",
        f"/api/v1/projects/1/results/{BIG}/logs",
        f"/api/v1/projects/1/results/{BIG}/commands",
        f"/api/v1/projects/{10**30}/series?keys=a",
    ],
)
def test_huge_ids_are_404(client: FlaskClient, project, path: str) -> None:
    err = _error(client.get(path), 404)
    assert "not found" in err["message"]


def test_huge_ids_in_queries(client: FlaskClient, project) -> None:
    pid = project["id"]
    r = client.get(f"/api/v1/projects/{pid}/series?keys=a&results=1,{BIG},{10**40}")
    assert r.status_code == 200 and r.json == {"series": []}
    r = client.get(f"/api/v1/projects/{pid}/results/1/logs?offset={10**40}")
    _error(r, 404)
    err = _error(client.delete(f"/api/v1/projects/{BIG}"), 404)
    assert str(BIG) in err["message"]
