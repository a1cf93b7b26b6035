"""/commands and /snapshots: the server side of the file protocol."""

from __future__ import annotations

import json
from pathlib import Path

from flask.testing import FlaskClient
from ui_testing import crawl, write_status

from kusari_ui import commands as cmd_files


def _setup(client: FlaskClient, project, make_run) -> tuple[str, Path]:
    run = make_run("a", n=3)
    write_status(run, "running")  # a CommandsExtension is listening
    crawl(client, project["id"])
    rid = client.get(f"/api/v1/projects/{project['id']}/results").json["results"][0][
        "id"
    ]
    return f"/api/v1/projects/{project['id']}/results/{rid}", run


def test_send_commands_and_see_responses(client: FlaskClient, project, make_run):
    base, run = _setup(client, project, make_run)
    r = client.post(f"{base}/commands", json={"name": "stop"})
    assert r.status_code == 201 and r.json["command"]["status"] == "pending"
    r = client.post(
        f"{base}/commands",
        json={"name": "adjust_hyperparams", "body": {"hyperparams": {"lr": 0.01}}},
    )
    assert r.json["command"]["body"] == {
        "optimizer": "main",
        "hyperparams": {"lr": 0.01},
    }
    on_disk = json.loads((run / cmd_files.COMMANDS_FILE).read_text())
    assert [c["name"] for c in on_disk] == ["stop", "adjust_hyperparams"]
    # the job answers in its own file
    stop_id = on_disk[0]["id"]
    cmd_files.write_json_atomic(
        run / cmd_files.RESPONSES_FILE,
        {stop_id: {"status": "done", "response": {"message": "ok"}, "iteration": 7}},
    )
    hist = client.get(f"{base}/commands").json["commands"]
    assert hist[0]["status"] == "done" and hist[0]["iteration"] == 7
    assert hist[1]["status"] == "pending"


def test_command_validation(client: FlaskClient, project, make_run) -> None:
    base, _ = _setup(client, project, make_run)
    bad = [
        {"name": "rm -rf"},
        {"name": "adjust_hyperparams"},
        {"name": "adjust_hyperparams", "body": {"hyperparams": {"lr": "fast"}}},
        {"name": "adjust_hyperparams", "body": {"hyperparams": {"lr": True}}},
        {"name": "stop", "body": [1]},
    ]
    for payload in bad:
        r = client.post(f"{base}/commands", json=payload)
        assert r.status_code == 400, payload
        assert set(r.json["error"]) == {"type", "message"}
    r = client.post(
        f"{base}/commands",
        data='{"name": "stop", "x": 1e999999}',
        content_type="application/json",
    )
    assert r.status_code == 201  # huge numbers parse (as inf) and are ignored


def test_snapshots_list_and_download(client: FlaskClient, project, make_run) -> None:
    base, run = _setup(client, project, make_run)
    (run / "snapshot_iter_10").write_bytes(b"weights")
    (run / "other.bin").write_bytes(b"no")
    snaps = client.get(f"{base}/snapshots").json["snapshots"]
    assert [s["name"] for s in snaps] == ["snapshot_iter_10"]
    with client.get(f"{base}/snapshots/snapshot_iter_10") as r:
        assert r.status_code == 200 and r.data == b"weights"
    r = client.get(f"{base}/snapshots/other.bin")
    assert r.status_code == 404
    assert r.json["error"]["message"].startswith("snapshot 'other.bin' not found")
