"""What the page says about runs: status, commands, run page, charts, counts."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from flask import Flask
from ui_testing import crawl, make_entries, set_mtime, write_log, write_status

from kusari_ui import commands as cmd_files

CHROMIUM = "/usr/bin/chromium"  # the browser and page fixtures: conftest.py
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not os.path.exists(CHROMIUM),
        reason=f"{CHROMIUM} not found (apt-get install chromium)",
    ),
]


@pytest.fixture
def runs(client, project, make_run) -> dict[str, Any]:
    """live (listening), fin (finished), fail (failed), plain (no status)."""
    paths = {n: make_run(n, n=40, args={"lr": 0.1, "name": n}) for n in
             ("live", "fin", "fail", "plain")}  # fmt: skip
    write_status(paths["live"], "running")
    write_status(paths["fin"], "finished")
    write_status(paths["fail"], "failed", error="FloatingPointError: loss is nan")
    set_mtime(paths["plain"] / "log", 600)
    crawl(client, project["id"])
    rows = client.get(f"/api/v1/projects/{project['id']}/results").json["results"]
    return {
        "project": project,
        "paths": paths,
        "ids": {r["name"]: r["id"] for r in rows},
    }


def _status_of(page: Any, rid: int) -> str:
    return str(page.text_content(f"#results tr[data-id='{rid}'] .status"))


def test_statuses_and_commands_only_when_listening(
    live_server, runs, page, client
) -> None:
    pid, ids, paths = runs["project"]["id"], runs["ids"], runs["paths"]
    page.goto(f"{live_server.url}/#/projects/{pid}")
    page.wait_for_selector("#results tbody tr[data-id]")
    got = {n: _status_of(page, ids[n]) for n in ids}
    assert got == {"live": "running", "fin": "finished", "fail": "failed",
                   "plain": "idle"}  # fmt: skip
    # a failed run shows why; commands are off with the reason as tooltip
    page.click("#results .runname:text-is('fail')")
    page.wait_for_selector("#status-error")
    assert page.text_content("#status-error") == "FloatingPointError: loss is nan"
    assert page.is_disabled("#cmd-stop") and page.is_disabled("#cmd-snapshot")
    assert page.is_disabled("#cmd-adjust")
    assert "failed" in page.get_attribute("#cmd-stop", "title")
    keep = os.environ.get("KUSARI_UI_SCREENSHOT_DIR")
    if keep:  # lets a developer look at what the test saw
        page.screenshot(path=os.path.join(keep, "statuses.png"), full_page=True)
    page.click("#results .runname:text-is('plain')")
    page.wait_for_selector("#focused-name:text-is('plain')")
    page.wait_for_selector("#commands-note")
    assert page.is_disabled("#cmd-stop")
    assert "CommandsExtension" in page.get_attribute("#cmd-stop", "title")
    # the listening run takes a stop; unanswered for long it reads "timed out"
    page.click("#results .runname:text-is('live')")
    page.wait_for_selector("#focused-name:text-is('live')")
    assert page.is_enabled("#cmd-stop")
    assert page.locator("#commands-note").count() == 0
    page.click("#cmd-stop")
    page.wait_for_selector("#command-history tbody tr .status.pending")
    cmds = cmd_files.read_commands(paths["live"])
    cmds[0]["requestedAt"] = "2020-01-01T00:00:00Z"
    cmd_files.write_json_atomic(paths["live"] / cmd_files.COMMANDS_FILE, cmds)
    page.wait_for_selector("#command-history .status.timed_out", timeout=15000)
    assert page.text_content("#command-history .status.timed_out") == "timed out"
    # history headers are not cut off
    clipped = page.evaluate("""() => [...document.querySelectorAll(
        '#command-history th')].filter(th => th.scrollWidth > th.clientWidth + 1)
        .map(th => th.textContent)""")
    assert clipped == []
    inside = page.evaluate("""() => {
        const p = document.getElementById('commands-panel').getBoundingClientRect();
        return [...document.querySelectorAll('#command-history th')].every(
            th => th.getBoundingClientRect().right <= p.right + 1); }""")
    assert inside, "history header runs out of the panel"
    assert "null" not in page.text_content("#commands-panel")
    # the job stops: the status follows and the buttons switch off
    write_status(paths["live"], "stopped")
    crawl(client, pid)
    sel = f"#results tr[data-id='{ids['live']}'] .status"
    page.wait_for_function(
        f"""() => document.querySelector("{sel}").textContent === 'stopped'""",
        timeout=15000,
    )
    page.wait_for_selector("#cmd-stop:disabled", timeout=15000)
    assert page.js_errors == []


def test_run_page(live_server, runs, page) -> None:
    pid, ids, paths = runs["project"]["id"], runs["ids"], runs["paths"]
    (paths["live"] / "snapshot_iter_40").write_bytes(b"w" * 2048)
    page.goto(f"{live_server.url}/#/projects/{pid}")
    page.wait_for_selector("#results tbody tr[data-id]")
    page.click(f"#results tr[data-id='{ids['live']}'] a.runlink")
    page.wait_for_selector("#run-page")
    assert page.url.endswith(f"#/projects/{pid}/results/{ids['live']}")
    assert page.text_content("#run-name") == "live"
    # every metric family is a chart: loss and accuracy, validation dashed
    page.wait_for_function(
        "() => document.getElementById('run-chart') && "
        "document.getElementById('run-chart').dataset.series === '2'"
    )
    groups = page.eval_on_selector_all(
        "#run-charts canvas", "cs => cs.map(c => c.dataset.group)"
    )
    assert groups == ["main/loss", "main/accuracy"]
    for cid in ("run-chart", "run-chart-2"):
        data = page.eval_on_selector(f"#{cid}", "c => ({...c.dataset})")
        assert data["series"] == "2" and data["dashed"] == "1"
        assert len(data["colors"].split()) == 1  # train and validation share a hue
    args = page.locator("#run-args tbody tr").all_text_contents()
    assert args == ["lr0.1", "namelive"]
    assert page.text_content("#snapshots li a") == "snapshot_iter_40"
    assert page.is_enabled("#cmd-stop")
    page.wait_for_selector("#command-history")
    keep = os.environ.get("KUSARI_UI_SCREENSHOT_DIR")
    if keep:  # lets a developer look at what the test saw
        page.screenshot(path=os.path.join(keep, "run.png"), full_page=True)
    # a failed run's page shows the error
    page.goto(f"{live_server.url}/#/projects/{pid}/results/{ids['fail']}")
    page.wait_for_selector("#run-page #status-error")
    assert "loss is nan" in page.text_content("#status-error")
    assert page.is_disabled("#cmd-stop")
    assert page.js_errors == []


def test_default_charts_pair_train_and_validation(live_server, runs, page) -> None:
    pid = runs["project"]["id"]
    page.goto(f"{live_server.url}/#/projects/{pid}")
    page.wait_for_function(
        "() => document.getElementById('chart-2') && "
        "document.getElementById('chart-2').dataset.series === '8'"
    )
    loss = page.eval_on_selector("#chart", "c => ({...c.dataset})")
    acc = page.eval_on_selector("#chart-2", "c => ({...c.dataset})")
    assert loss["group"] == "main/loss" and acc["group"] == "main/accuracy"
    for d in (loss, acc):  # 4 runs: 4 hues, each solid (train) and dashed
        assert d["series"] == "8" and d["dashed"] == "4"
        assert len(d["colors"].split()) == 4
    assert loss["colors"] == acc["colors"]  # a run keeps its hue across charts
    a = page.locator("#chart").bounding_box()
    b = page.locator("#chart-2").bounding_box()
    assert abs(a["y"] - b["y"]) < 2 and b["x"] > a["x"] + a["width"] - 1
    assert page.js_errors == []


def test_integers_and_indexing_banner(
    app: Flask, live_server, client, project, make_run, page
) -> None:
    app.config["POLL_INTERVAL_MS"] = 300
    run = make_run("big", n=3)
    entries = make_entries(3)
    for i, e in enumerate(entries):
        e["iteration"] = 1_234_565 + i
        e["epoch"] = 12_345
    write_log(run / "log", entries)
    state = app.extensions["kusari_ui"]["crawl"]
    state.running = True  # a crawler whose first pass is under way
    try:
        page.goto(live_server.url + "/")
        page.wait_for_selector("#indexing")
        assert "Indexing" in page.text_content("#indexing")
        # the project's first crawl has not finished: its page says so too
        page.goto(f"{live_server.url}/#/projects/{project['id']}")
        page.wait_for_selector("#results")
        page.wait_for_selector("#indexing")
    finally:
        state.running = False
    crawl(client, project["id"])
    page.wait_for_selector("#indexing", state="detached", timeout=10000)
    page.wait_for_selector("#results tbody tr[data-id]")
    cells = {
        th: page.text_content(f"#results tbody td:nth-child({i + 1})")
        for i, th in enumerate(page.locator("#results thead th").all_text_contents())
    }
    assert cells["iteration"] == "1,234,567"
    assert cells["epoch"] == "12,345"
    assert cells["entries"] == "3"
    assert json.loads(client.get("/api/v1/projects").data)["crawling"] is False
    assert page.js_errors == []
