"""The page shell: served offline, locked down by headers."""

from __future__ import annotations

import re
from pathlib import Path

from flask.testing import FlaskClient

import kusari_ui

STATIC = Path(kusari_ui.__file__).parent / "static"


def test_index_and_assets(client: FlaskClient) -> None:
    r = client.get("/")
    assert r.status_code == 200 and b'<main id="view">' in r.data
    assert b'data-poll-ms="3000"' in r.data
    csp = r.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    for name in (
        "app.js",
        "common.js",
        "runpage.js",
        "chart.js",
        "style.css",
        "favicon.svg",
    ):
        with client.get(f"/static/{name}") as resp:
            assert resp.status_code == 200, name


def test_assets_need_no_network() -> None:
    """No CDN: nothing in the bundle loads from another origin."""
    for path in STATIC.rglob("*"):
        if path.is_file():
            text = path.read_text()
            urls = re.findall(r"https?://[^\s'\")]+", text)
            assert all("www.w3.org/2000/svg" in u for u in urls), (path, urls)


def test_page_never_uses_inner_html() -> None:
    """All data reaches the DOM through textContent (see the XSS browser test)."""
    for name in ("app.js", "common.js", "runpage.js", "chart.js"):
        assert "innerHTML" not in (STATIC / name).read_text()
        assert "insertAdjacentHTML" not in (STATIC / name).read_text()


def test_non_api_404_is_html(client: FlaskClient) -> None:
    r = client.get("/nope")
    assert r.status_code == 404 and not r.is_json
