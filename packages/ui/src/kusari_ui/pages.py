"""The single page app: ``/`` serves the page, ``/static`` its assets."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template
from flask.typing import ResponseReturnValue

bp = Blueprint(
    "pages",
    __name__,
    template_folder="templates",
    static_folder="static",
    static_url_path="/static",
)


@bp.get("/")
def index() -> ResponseReturnValue:
    """The page; all data comes from the JSON API."""
    from kusari_ui import __version__

    return render_template(
        "index.html",
        poll_ms=int(current_app.config["POLL_INTERVAL_MS"]),
        version=__version__,
    )
