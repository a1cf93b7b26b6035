"""Check a built HTML site: internal links resolve, and search finds pages.

    python docs/_check_site.py BUILD_HTML_DIR

Always: every relative ``href``/``src`` of every page points to an existing
file (and, with a ``#fragment``, to an ``id`` in it), and the search index
knows the words a reader would look for. Then, when Chromium is installed
(``/usr/bin/chromium``, or ``$CHROMIUM``) together with Playwright's Python
package, the site is opened in headless Chromium from a local HTTP server: the
index page must render, and the search page must list results for a query.
Without them that part is skipped with the reason printed.
"""

from __future__ import annotations

import functools
import http.server
import os
import sys
import threading
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

# Stemmed as the index stores them ("variable" is indexed as "variabl").
SEARCH_WORDS = ["trainer", "backward", "snapshot", "mpiexec", "gymnasium", "gunicorn"]
BROWSER_QUERY = "Trainer"


class _Page(HTMLParser):
    """Collects the links and element ids of one HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id":
                self.ids.add(value)
            elif (tag, name) in {
                ("a", "href"),
                ("link", "href"),
                ("img", "src"),
                ("script", "src"),
            }:
                self.links.append(value)


@functools.cache
def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def check_links(root: Path) -> list[str]:
    """Every broken internal link, as 'page: link (reason)'."""
    problems = []
    pages = sorted(root.rglob("*.html"))
    for page_path in pages:
        for link in _parse(page_path).links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "data:")):
                continue  # external: not checked (the build is offline)
            target = (
                page_path
                if not parts.path
                else (page_path.parent / unquote(parts.path)).resolve()
            )
            if target.is_dir():
                target = target / "index.html"
            where = f"{page_path.relative_to(root)}: {link}"
            if not target.exists():
                problems.append(f"{where} (no such file)")
            elif parts.fragment and target.suffix == ".html":
                if unquote(parts.fragment) not in _parse(target).ids:
                    problems.append(f"{where} (no id {parts.fragment!r})")
    if not pages:
        problems.append(f"{root}: no HTML pages")
    return problems


def check_search_index(root: Path) -> list[str]:
    """Words missing from Sphinx's search index."""
    index = root / "searchindex.js"
    if not index.exists():
        return [f"{index} is missing"]
    text = index.read_text(encoding="utf-8").lower()
    return [f"search index lacks {w!r}" for w in SEARCH_WORDS if f'"{w}"' not in text]


def _chromium() -> tuple[str | None, str]:
    exe = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if not Path(exe).exists():
        return None, f"{exe} is not installed"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return None, "the Python package playwright is not installed"
    return exe, ""


def check_in_browser(root: Path, exe: str) -> list[str]:
    """Open the site in headless Chromium; the search page must list results."""
    from playwright.sync_api import sync_playwright

    missing: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(root), **kwargs)

        def send_error(self, code: int, *args: Any, **kwargs: Any) -> None:
            # Chromium asks for /favicon.ico on its own; the site has none.
            if code == 404 and self.path != "/favicon.ico":
                missing.append(self.path)
            super().send_error(code, *args, **kwargs)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: problems are collected above

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    problems = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=exe,
                args=[
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-background-networking",
                    "--no-first-run",
                ],
            )
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{base}/index.html")
            if "kusari" not in page.title():
                problems.append(f"index title is {page.title()!r}")
            page.goto(f"{base}/search.html?q={BROWSER_QUERY}")
            try:
                page.wait_for_selector("ul.search li", timeout=20000)
                found = page.locator("ul.search li").count()
            except Exception:  # timed out waiting: no results, reported below
                found = 0
            if not found:
                problems.append(f"search for {BROWSER_QUERY!r} listed no results")
            else:
                print(f"browser: search for {BROWSER_QUERY!r} listed {found} results")
            problems += [f"JavaScript error: {e}" for e in errors]
            problems += [f"the browser asked for a missing file: {m}" for m in missing]
            browser.close()
    finally:
        server.shutdown()
    return problems


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    root = Path(argv[0]).resolve()
    problems = check_links(root) + check_search_index(root)
    n_pages = len(list(root.rglob("*.html")))
    print(f"static checks: {n_pages} pages, {len(problems)} problems")
    exe, reason = _chromium()
    if exe is None:
        print(f"browser check skipped: {reason}")
    else:
        problems += check_in_browser(root, exe)
    for problem in problems:
        print("  " + problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
