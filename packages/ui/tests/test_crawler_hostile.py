"""The crawler on hostile run folders: FIFOs, bad bytes, huge files."""

from __future__ import annotations

import functools
import json
import os
import threading
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from ui_testing import make_entries, write_log

import kusari_ui.crawler as crawler_mod
from kusari_ui import commands as cmd_files
from kusari_ui import runfiles
from kusari_ui.logreader import read_log


def _crawl_in_thread(client: FlaskClient, pid: int) -> dict[str, Any]:
    """POST /crawl, failing (instead of hanging the suite) if it blocks."""
    out: dict[str, Any] = {}

    def target() -> None:
        out["resp"] = client.post(f"/api/v1/projects/{pid}/crawl")

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(30)
    assert not t.is_alive(), "the crawl blocked"
    assert out["resp"].status_code == 200, out["resp"].json
    data: dict[str, Any] = out["resp"].json
    return data


def _runs(client: FlaskClient, pid: int) -> dict[str, dict[str, Any]]:
    rows = client.get(f"/api/v1/projects/{pid}/results").json["results"]
    return {r["pathName"]: r for r in rows}


def test_fifos_in_run_folders_do_not_block_ingestion(
    client: FlaskClient, project, make_run, project_dir: Path
) -> None:
    make_run("good", n=5)
    fifo_args = make_run("fifo-args", n=4)
    (fifo_args / "args").unlink()
    os.mkfifo(fifo_args / "args")
    fifo_log = project_dir / "fifo-log"
    fifo_log.mkdir()
    (fifo_log / "args").write_text('{"lr": 1}')
    os.mkfifo(fifo_log / "log")
    fifo_status = make_run("fifo-status", n=3)
    os.mkfifo(fifo_status / cmd_files.STATUS_FILE)
    stats = _crawl_in_thread(client, project["id"])
    assert stats["newEntries"] == 5 + 4 + 3
    runs = _runs(client, project["id"])
    assert runs["good"]["warnings"] == []
    assert runs["fifo-args"]["nEntries"] == 4
    assert any(
        w.startswith("args:") and "FIFO" in w for w in runs["fifo-args"]["warnings"]
    )
    assert runs["fifo-log"]["args"] == {"lr": 1}
    assert runs["fifo-log"]["warnings"] == ["log: not a regular file: not read"]
    assert runs["fifo-status"]["nEntries"] == 3
    # The commands history reads the same files: a FIFO there does not hang.
    rid = runs["fifo-status"]["id"]
    r = client.get(f"/api/v1/projects/{project['id']}/results/{rid}/commands")
    assert r.status_code == 200


def test_undecodable_bytes_are_skipped_and_shown(
    client: FlaskClient, project, project_dir: Path
) -> None:
    run = project_dir / "latin1"
    run.mkdir()
    entries = make_entries(30)
    raw = json.dumps(entries, indent=4).encode()
    raw = raw.replace(b'"main/loss"', b'"main/lo\xdfs"', 1)  # Latin-1 sharp s
    (run / "log").write_bytes(raw)
    _crawl_in_thread(client, project["id"])
    r = _runs(client, project["id"])["latin1"]
    assert r["nEntries"] == 30  # before: 0 for good, shown as active
    assert len(r["warnings"]) == 1
    assert "1 bytes that are not UTF-8" in r["warnings"][0]
    assert str(raw.index(b"\xdf")) in r["warnings"][0]
    # A rewritten clean log clears the warning.
    write_log(run / "log", entries)
    _crawl_in_thread(client, project["id"])
    assert _runs(client, project["id"])["latin1"]["warnings"] == []


def test_oversized_args_are_not_read(
    client: FlaskClient, project, make_run, project_dir: Path
) -> None:
    run = make_run("bigargs", n=2)
    (run / "args").write_text(json.dumps({"blob": "x" * (70 << 10)}))
    _crawl_in_thread(client, project["id"])
    r = _runs(client, project["id"])["bigargs"]
    assert r["args"] == {} and r["nEntries"] == 2
    assert "larger than" in r["warnings"][0]


def test_long_arg_strings_are_cut(client: FlaskClient, project, make_run) -> None:
    make_run("longarg", n=2, args={"note": "y" * 10000})
    _crawl_in_thread(client, project["id"])
    r = _runs(client, project["id"])["longarg"]
    assert len(r["args"]["note"]) == runfiles.MAX_ARG_TEXT


def test_time_budget_spreads_a_big_log_over_crawls(
    app: Flask, client: FlaskClient, project, make_run, monkeypatch
) -> None:
    make_run("big", n=150)
    monkeypatch.setattr(
        crawler_mod, "read_log", functools.partial(read_log, max_bytes=4000)
    )
    monkeypatch.setattr(crawler_mod, "FILE_TIME_BUDGET", 0.0)
    # crawl_result's default was bound at import: pass the budget through.
    real = crawler_mod.crawl_result
    monkeypatch.setattr(
        crawler_mod,
        "crawl_result",
        lambda s, p, r, time_budget=0.0: real(s, p, r, time_budget),
    )
    first = _crawl_in_thread(client, project["id"])["newEntries"]
    assert 0 < first < 150
    total, n = first, -1
    while n:
        n = _crawl_in_thread(client, project["id"])["newEntries"]
        total += n
    assert total == 150
    assert _runs(client, project["id"])["big"]["nEntries"] == 150


def test_crawl_waits_for_the_lock_then_answers_503(
    client: FlaskClient, project, monkeypatch
) -> None:
    import kusari_ui.api.projects as projects_api

    monkeypatch.setattr(projects_api, "LOCK_WAIT", 0.1)
    held = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with crawler_mod.INGEST_LOCK:
            held.set()
            release.wait(10)

    t = threading.Thread(target=hold, daemon=True)
    t.start()
    held.wait(5)
    try:
        r = client.post(f"/api/v1/projects/{project['id']}/crawl")
    finally:
        release.set()
        t.join(5)
    assert r.status_code == 503 and "try again" in r.json["error"]["message"]
