"""The page in a real Chromium (Debian's package) driven by Playwright."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from ui_testing import crawl, make_entries, write_log, write_status

from kusari_ui import commands as cmd_files

CHROMIUM = "/usr/bin/chromium"  # the browser and page fixtures: conftest.py
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not os.path.exists(CHROMIUM),
        reason=f"{CHROMIUM} not found (apt-get install chromium)",
    ),
]
XSS_NAME = "<img src=x onerror=window.__xss=1>"


@pytest.fixture
def runs(client, project, make_run, project_dir: Path) -> dict[str, Any]:
    for name, n, args, scale in [
        ("mlp-lr0.1", 300, {"lr": 0.1, "batchsize": 64, "optimizer": "sgd"}, 1.0),
        ("mlp-lr0.01", 200, {"lr": 0.01, "batchsize": 64, "optimizer": "sgd"}, 1.6),
        ("cnn-adam", 120, {"lr": 0.001, "batchsize": 32, "optimizer": "adam"}, 0.6),
    ]:
        run = make_run(name, n=n, args=args)
        entries = make_entries(n)
        for e in entries:  # distinct curves, so the screenshot shows them apart
            e["main/loss"] = scale * (0.2 + 1.0 / (1 + e["iteration"] / 20))
        write_log(run / "log", entries)
        if name != "mlp-lr0.01":  # a CommandsExtension listens in these two
            write_status(run, "running")
    evil = project_dir / XSS_NAME
    evil.mkdir()
    entries = make_entries(50)
    for e in entries:
        e["<svg onload=window.__xss=3>"] = 1.0
    write_log(evil / "log", entries)
    (evil / "args").write_text(
        json.dumps({"<script>window.__xss=2</script>": "<b>x</b>"})
    )
    crawl(client, project["id"])
    return project


def _shot(page: Any, tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    keep = os.environ.get("KUSARI_UI_SCREENSHOT_DIR")
    if keep:  # lets a developer look at what the test saw
        os.makedirs(keep, exist_ok=True)
        shutil.copy(path, keep)
    return path


def _ink(page: Any) -> int:
    """Non-white pixels in the chart canvas: proof that curves were drawn."""
    return int(
        page.evaluate("""() => {
        const c = document.getElementById('chart');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4) if (d[i] < 200 && d[i+2] > 150) n++;
        return n; }""")
    )


def test_projects_page_lists_projects(live_server, runs, page, tmp_path: Path) -> None:
    page.goto(live_server.url + "/")
    page.wait_for_selector("#projects td a")
    assert page.text_content("#projects td a") == "p"
    _shot(page, tmp_path, "projects")
    page.click("#projects td a")
    page.wait_for_selector("#results tbody tr[data-id]")
    assert page.js_errors == []


def test_results_table_chart_and_commands(
    live_server, runs, page, tmp_path: Path, project_dir: Path, client
) -> None:
    pid = runs["id"]
    page.goto(f"{live_server.url}/#/projects/{pid}")
    page.wait_for_selector("#results tbody tr[data-id]")
    rows = page.locator("#results tbody tr[data-id]")
    assert rows.count() == 4
    headers = page.locator("#results thead th").all_text_contents()
    assert {"name", "status", "lr", "batchsize", "main/loss"} <= set(headers)
    # the chart is drawn for the first runs, main/loss by default
    # (the page may re-render between polls: no chart element is "not yet").
    # A function, not an expression: Playwright re-evaluates a bare
    # expression with eval() while polling, which the page's CSP refuses.
    page.wait_for_function(
        "() => (document.getElementById('chart')?.dataset.series ?? 0) >= 3"
    )
    assert _ink(page) > 500
    # XSS attempts render as text and never run
    assert page.locator("#results .runname", has_text=XSS_NAME).count() == 1
    assert page.evaluate("window.__xss") is None
    assert page.locator("#results th", has_text="<script>").count() == 1
    # sort by lr (ascending), then filter
    page.click("#results th[data-col='arg:lr']")
    names = page.locator("#results .runname").all_text_contents()
    assert names[:3] == ["cnn-adam", "mlp-lr0.01", "mlp-lr0.1"]
    page.fill("#filter", "adam")
    assert page.locator("#results tbody tr[data-id]").count() == 1
    page.fill("#filter", "")
    # column chooser hides a column
    page.click("#columns-btn")
    page.uncheck("#column-chooser input[data-col='arg:batchsize']")
    assert "batchsize" not in page.locator("#results thead th").all_text_contents()
    page.click("h2")  # closes the chooser
    # chart controls: x axis, smoothing, log scale, hover tooltip
    page.select_option("#x-axis", "epoch")
    page.fill("#smoothing", "0.8")
    page.check("#log-y")
    assert _ink(page) > 500
    box = page.locator("#chart").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    tip = page.text_content(".tooltip") or ""
    assert "mlp-lr0.1 · main/loss" in tip and "mlp-lr0.1 · validation/main/loss" in tip
    assert "accuracy" not in tip
    with page.expect_download() as dl:
        page.click("#csv")
    csv = Path(dl.value.path()).read_text()
    assert csv.startswith("run,metric,epoch,value,smoothed") and "mlp-lr0.1" in csv
    with page.expect_download() as dl:
        page.click("#png")
    assert Path(dl.value.path()).read_bytes()[:4] == b"\x89PNG"
    # focus a run and send a command; the job's answer shows up
    page.click("#results .runname:text-is('mlp-lr0.1')")
    page.wait_for_selector("#cmd-stop")
    page.click("#cmd-stop")
    page.wait_for_selector("#command-history tbody tr")
    assert "stop" in page.text_content("#command-history tbody tr")
    assert "pending" in page.text_content("#command-history tbody tr")
    run = project_dir / "mlp-lr0.1"
    cid = cmd_files.read_commands(run)[0]["id"]
    cmd_files.write_json_atomic(
        run / cmd_files.RESPONSES_FILE,
        {
            cid: {
                "status": "done",
                "response": {"message": "stopping"},
                "iteration": 300,
            }
        },
    )
    page.wait_for_selector("#command-history .status.done", timeout=15000)
    # live update: the run grows while the page is open
    write_log(run / "log", make_entries(450))
    crawl(client, pid)
    page.wait_for_function(
        """() => [...document.querySelectorAll('#results td')]
               .some(td => td.textContent === '450')""",
        timeout=15000,
    )
    page.uncheck("#log-y")
    shot = _shot(page, tmp_path, "project")
    assert shot.stat().st_size > 10_000
    assert page.js_errors == []
    assert page.evaluate("window.__xss") is None


def test_adjust_hyperparams_form(live_server, runs, page, project_dir: Path) -> None:
    page.goto(f"{live_server.url}/#/projects/{runs['id']}")
    page.click("#results .runname:text-is('cnn-adam')")
    page.fill("#hp-name", "alpha")
    page.fill("#hp-value", "0.0005")
    page.click("#cmd-adjust")
    page.wait_for_selector("#command-history tbody tr")
    cmds = cmd_files.read_commands(project_dir / "cnn-adam")
    assert cmds[0]["body"] == {"optimizer": "main", "hyperparams": {"alpha": 0.0005}}
    assert page.js_errors == []
