"""What the API says about runs: status, listening, timed-out commands."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from ui_testing import crawl, make_entries, set_mtime, write_log, write_status

from kusari_ui import commands as cmd_files
from kusari_ui.crawler import Crawler


def _rows(client: FlaskClient, pid: int) -> dict[str, dict[str, Any]]:
    crawl(client, pid)
    results = client.get(f"/api/v1/projects/{pid}/results").json["results"]
    return {r["name"]: r for r in results}


def test_status_file_states(client: FlaskClient, project, make_run) -> None:
    write_status(make_run("fin"), "finished")
    write_status(make_run("stop"), "stopped")
    write_status(make_run("fail"), "failed", error="FloatingPointError: loss is nan")
    write_status(make_run("run"), "running", age=5)
    write_status(make_run("stopping"), "stopping", age=1)
    write_status(make_run("stall"), "running", age=500)
    rows = _rows(client, project["id"])
    got = {k: (r["status"], r["listening"]) for k, r in rows.items()}
    assert got == {
        "fin": ("finished", False),
        "stop": ("stopped", False),
        "fail": ("failed", False),
        "run": ("running", True),
        "stopping": ("stopping", True),
        "stall": ("stalled", False),
    }
    assert rows["fail"]["statusError"] == "FloatingPointError: loss is nan"
    assert rows["fin"]["statusError"] is None
    assert rows["run"]["commandsDisabledReason"] is None
    assert "finished" in rows["fin"]["commandsDisabledReason"]
    assert "heartbeat" in rows["stall"]["commandsDisabledReason"]
    # an old log does not matter while the heartbeat is fresh
    set_mtime(Path(project["path"]) / "run" / "log", 1000)
    assert _rows(client, project["id"])["run"]["status"] == "running"


def test_stale_seconds_is_configurable(app: Flask, client, project, make_run) -> None:
    write_status(make_run("r"), "running", age=20)
    assert _rows(client, project["id"])["r"]["status"] == "running"
    app.config["STALE_SECONDS"] = 10.0
    assert _rows(client, project["id"])["r"]["status"] == "stalled"


def test_run_without_status_file_is_active_then_idle(
    app: Flask, client: FlaskClient, project, make_run
) -> None:
    app.config["ACTIVE_SECONDS"] = 1.0
    make_run("plain")
    rows = _rows(client, project["id"])
    assert rows["plain"]["status"] == "active"  # the log was just written
    assert rows["plain"]["listening"] is False
    assert "CommandsExtension" in rows["plain"]["commandsDisabledReason"]
    # the log stops growing: idle once the window passed, never "finished"
    time.sleep(1.2)
    assert _rows(client, project["id"])["plain"]["status"] == "idle"
    old = make_run("old")
    set_mtime(old / "log", 40)
    assert _rows(client, project["id"])["old"]["status"] == "idle"


def test_activity_window_follows_the_log_rhythm(
    client: FlaskClient, project, make_run
) -> None:
    fast, slow = make_run("fast", n=10), make_run("slow", n=10)
    set_mtime(fast / "log", 42)
    set_mtime(slow / "log", 100)
    crawl(client, project["id"])
    # fast writes every 2 s, slow every 60 s; both last wrote 40 s ago
    write_log(fast / "log", make_entries(11))
    set_mtime(fast / "log", 40)
    write_log(slow / "log", make_entries(11))
    set_mtime(slow / "log", 40)
    rows = _rows(client, project["id"])
    assert rows["fast"]["status"] == "idle"  # 20 silent intervals: it stopped
    assert rows["slow"]["status"] == "active"  # within 3 of its intervals
    assert rows["slow"]["nEntries"] == 11


def test_command_file_is_not_activity(client: FlaskClient, project, make_run) -> None:
    run = make_run("quiet")
    set_mtime(run / "log", 300)
    assert _rows(client, project["id"])["quiet"]["status"] == "idle"
    cmd_files.request_command(run, "stop")  # as an older server would have
    (run / cmd_files.RESPONSES_FILE).write_text("{}")
    assert _rows(client, project["id"])["quiet"]["status"] == "idle"


def test_commands_refused_unless_listening(
    client: FlaskClient, project, make_run
) -> None:
    runs = {
        "plain": make_run("plain"),
        "fin": make_run("fin"),
        "stall": make_run("stall"),
        "live": make_run("live"),
    }
    write_status(runs["fin"], "finished")
    write_status(runs["stall"], "running", age=1000)
    write_status(runs["live"], "running")
    rows = _rows(client, project["id"])
    for name in ("plain", "fin", "stall"):
        url = f"/api/v1/projects/{project['id']}/results/{rows[name]['id']}/commands"
        r = client.post(url, json={"name": "stop"})
        assert r.status_code == 409, name
        assert r.json["error"]["type"] == "conflict"
        assert "not listening" in r.json["error"]["message"]
        assert set(r.json["error"]) == {"type", "message"}
        assert not (runs[name] / cmd_files.COMMANDS_FILE).exists()
    url = f"/api/v1/projects/{project['id']}/results/{rows['live']['id']}/commands"
    assert client.post(url, json={"name": "stop"}).status_code == 201
    # the job says it is stopping: still listening, more commands go through
    write_status(runs["live"], "stopping")
    crawl(client, project["id"])
    assert client.post(url, json={"name": "take_snapshot"}).status_code == 201


def test_pending_command_times_out_when_served(
    app: Flask, client: FlaskClient, project, make_run
) -> None:
    run = make_run("r")
    write_status(run, "running")
    rid = _rows(client, project["id"])["r"]["id"]
    url = f"/api/v1/projects/{project['id']}/results/{rid}/commands"
    client.post(url, json={"name": "stop"})
    client.post(url, json={"name": "take_snapshot"})
    cmds = json.loads((run / cmd_files.COMMANDS_FILE).read_text())
    old = time.time() - 90
    cmds[0]["requestedAt"] = (
        time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(old)) + ".000000Z"
    )
    cmd_files.write_json_atomic(run / cmd_files.COMMANDS_FILE, cmds)
    on_disk = (run / cmd_files.COMMANDS_FILE).read_text()
    hist = client.get(url).json["commands"]
    assert [h["status"] for h in hist] == ["timed_out", "pending"]
    # computed when served, never written into the job's files
    assert (run / cmd_files.COMMANDS_FILE).read_text() == on_disk
    assert not (run / cmd_files.RESPONSES_FILE).exists()
    app.config["COMMAND_TIMEOUT_SECONDS"] = 120.0
    assert client.get(url).json["commands"][0]["status"] == "pending"
    # a late answer still shows
    cmd_files.write_json_atomic(
        run / cmd_files.RESPONSES_FILE,
        {cmds[0]["id"]: {"status": "done", "response": {"message": "ok"}}},
    )
    app.config["COMMAND_TIMEOUT_SECONDS"] = 60.0
    assert client.get(url).json["commands"][0]["status"] == "done"


def test_crawling_flag_during_first_pass(
    app: Flask, client: FlaskClient, project, make_run
) -> None:
    make_run("a", n=20)
    state = app.extensions["kusari_ui"]["crawl"]
    data = client.get("/api/v1/projects").json
    assert data["crawling"] is False and data["projects"][0]["indexing"] is False
    # a crawler started but not through its first pass yet
    state.running = True
    data = client.get("/api/v1/projects").json
    assert data["crawling"] is True and data["projects"][0]["indexing"] is True
    state.running = False
    crawler = Crawler(app.extensions["kusari_ui"]["factory"], 60.0, state=state)
    crawler.start()
    try:
        deadline = time.monotonic() + 30
        while not state.first_pass_done and time.monotonic() < deadline:
            time.sleep(0.02)
        data = client.get("/api/v1/projects").json
        assert data["crawling"] is False and data["projects"][0]["indexing"] is False
        assert data["projects"][0]["resultCount"] == 1
        # a folder registered later is indexing until its first crawl
        other = Path(project["path"]).parent / "other"
        other.mkdir()
        r = client.post("/api/v1/projects", json={"path": str(other)})
        assert r.json["project"]["indexing"] is True
        data = client.get("/api/v1/projects").json
        assert data["crawling"] is False  # the server's first pass is over
        assert [p["indexing"] for p in data["projects"]] == [False, True]
        crawl(client, r.json["project"]["id"])
        data = client.get("/api/v1/projects").json
        assert [p["indexing"] for p in data["projects"]] == [False, False]
    finally:
        crawler.stop()
    assert state.running is False


@pytest.mark.parametrize(
    ("interval", "expected"), [(0.0, 30.0), (2.0, 30.0), (20.0, 60.0), (90.0, 120.0)]
)
def test_active_window(interval: float, expected: float) -> None:
    from kusari_ui.status import active_window

    assert active_window(interval, 30.0, 120.0) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("source", "stored", "status_file", "last", "expected"),
    [
        ("api", "running", {}, 990.0, ("running", False)),
        ("api", "running", {}, 100.0, ("stalled", False)),
        ("api", "finished", {}, 100.0, ("finished", False)),
        (
            "folder",
            "missing",
            {"state": "running", "heartbeat": 999.0},
            0,
            ("missing", False),
        ),
        # an unknown word of the job is shown as is, with no commands
        ("folder", "x", {"state": "paused", "heartbeat": 999.0}, 0, ("paused", False)),
        ("folder", "running", {"state": "running"}, 999.0, ("stalled", False)),
        ("folder", "unknown", {}, 0.0, ("idle", False)),
    ],
)
def test_describe(source, stored, status_file, last, expected) -> None:
    from kusari_ui.status import describe

    st = describe(
        source, stored, status_file, last_activity=last, log_interval=0.0, now=1000.0
    )
    assert (st.status, st.listening) == expected
    assert (st.reason is None) == st.listening
