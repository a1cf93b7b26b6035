"""JSON API under ``/api/v1``: one blueprint per resource."""

from __future__ import annotations

from flask import Flask

API_PREFIX = "/api/v1"


def register_api(app: Flask) -> None:
    """Register every resource blueprint on ``app``."""
    from kusari_ui.api import args, client, commands, logs, projects, results, snapshots

    for module in (projects, results, logs, args, commands, snapshots, client):
        app.register_blueprint(module.bp, url_prefix=API_PREFIX)
