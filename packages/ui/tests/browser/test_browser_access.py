"""The page behind a token, and the warnings it shows about broken runs."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from flask import Flask
from ui_testing import crawl, make_entries, write_status

from kusari_ui import commands as cmd_files

CHROMIUM = "/usr/bin/chromium"  # the browser and page fixtures: conftest.py
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not os.path.exists(CHROMIUM),
        reason=f"{CHROMIUM} not found (apt-get install chromium)",
    ),
]
TOKEN = "browser-token-0123456789abcdef"


@pytest.fixture
def runs(app: Flask, client, project, make_run, project_dir) -> dict[str, Any]:
    live = make_run("live", n=40)
    write_status(live, "running")
    broken = project_dir / "broken"
    broken.mkdir()
    raw = json.dumps(make_entries(20), indent=4).encode()
    (broken / "log").write_bytes(raw.replace(b'"main/loss"', b'"main/lo\xdfs"', 1))
    crawl(client, project["id"])
    rows = client.get(f"/api/v1/projects/{project['id']}/results").json["results"]
    app.config["AUTH_TOKEN"] = TOKEN  # from here on, every request needs it
    return {
        "pid": project["id"],
        "ids": {r["name"]: r["id"] for r in rows},
        "live": live,
    }


def test_page_works_with_the_token_in_a_cookie(live_server, runs, page) -> None:
    pid, ids = runs["pid"], runs["ids"]
    page.goto(f"{live_server.url}/#/projects/{pid}")
    page.wait_for_selector("#token-message")
    assert "access token" in page.text_content("#token-message")
    page.fill("#token", TOKEN)
    page.click("button[type=submit]")
    page.wait_for_selector("#projects td a, #results")
    assert "token=" not in page.url  # the token left the address bar
    page.goto(f"{live_server.url}/#/projects/{pid}")
    page.wait_for_selector(f"#results tr[data-id='{ids['live']}']")
    # Writes work too: the cookie travels with the page's POST.
    page.click("#results .runname:text-is('live')")
    page.wait_for_selector("#cmd-stop:enabled")
    page.click("#cmd-stop")
    page.wait_for_selector("#command-history tbody tr")
    on_disk = cmd_files.read_commands(runs["live"])
    assert [c["name"] for c in on_disk] == ["stop"]
    assert page.js_errors == []


def test_token_in_the_url_opens_the_page(live_server, runs, page) -> None:
    page.goto(f"{live_server.url}/?token={TOKEN}#/projects/{runs['pid']}")
    page.wait_for_selector("#results tbody tr[data-id]")
    assert "token=" not in page.url
    cookies = page.context.cookies()
    assert len(cookies) == 1 and cookies[0]["httpOnly"]
    assert cookies[0]["sameSite"] == "Strict" and TOKEN not in cookies[0]["value"]


def test_warnings_show_on_the_table_and_the_run_page(live_server, runs, page):
    pid, ids = runs["pid"], runs["ids"]
    page.goto(f"{live_server.url}/?token={TOKEN}#/projects/{pid}")
    row = f"#results tr[data-id='{ids['broken']}']"
    page.wait_for_selector(f"{row} .warn-mark")
    assert "not UTF-8" in page.get_attribute(f"{row} .warn-mark", "title")
    assert page.locator(f"#results tr[data-id='{ids['live']}'] .warn-mark").count() == 0
    page.goto(f"{live_server.url}/#/projects/{pid}/results/{ids['broken']}")
    page.wait_for_selector("#run-page #run-warnings li")
    text = page.text_content("#run-warnings")
    assert "1 bytes that are not UTF-8 text were skipped" in text
    assert page.js_errors == []
