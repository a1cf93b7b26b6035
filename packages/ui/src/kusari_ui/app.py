"""Flask application factory.

Example:
    >>> app = create_app({"DATABASE_URL": "sqlite:////tmp/ui.sqlite"})  # doctest: +SKIP
    >>> app.test_client().get("/api/v1/projects").json  # doctest: +SKIP
    {'projects': []}
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, g

from kusari_ui.access import LOOPBACK_HOSTS, apply_defaults, install_access
from kusari_ui.api import register_api
from kusari_ui.crawler import CrawlState
from kusari_ui.db import (  # noqa: F401  (get_db: kept importable from here)
    default_url,
    get_db,
    make_engine,
    make_session_factory,
    upgrade,
)
from kusari_ui.errors import register_error_handlers
from kusari_ui.pages import bp as pages_bp


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Build the kusari-ui app.

    Args:
        config: Overrides of the defaults: ``DATABASE_URL`` (any SQLAlchemy
            URL), ``AUTO_UPGRADE`` (run migrations at start, default True),
            ``STALE_SECONDS`` (a run whose files have not changed for this long
            or a job whose heartbeat is this old is stalled), ``ACTIVE_SECONDS``
            (shortest time a silent log of a run without a status file still
            counts as growing), ``COMMAND_TIMEOUT_SECONDS`` (a command not
            answered for this long is shown as timed out), ``POLL_INTERVAL_MS``
            (page refresh). Access (see :mod:`kusari_ui.access`):
            ``ALLOWED_HOSTS`` (host names answered, default loopback only;
            None turns the check off; Flask's ``TRUSTED_HOSTS`` is taken
            over), ``AUTH_TOKEN`` (required on every request when set),
            ``PROJECT_ROOTS`` (folders the API may register projects in;
            default None: any folder; ``kusari-ui server`` passes its
            ``--root`` folders, by default its working directory),
            ``ALLOW_API_REGISTRATION`` (default True). Limits:
            ``MAX_CONTENT_LENGTH`` (request body bytes, default 16 MiB),
            ``MAX_ARGS_BYTES`` (a run's args as JSON, default 64 KiB),
            ``MAX_COMMAND_BYTES`` (one command's body, default 16 KiB).

    Returns:
        The Flask app; its engine and session factory live in
        ``app.extensions["kusari_ui"]``, with the crawler's
        :class:`~kusari_ui.crawler.CrawlState` under ``"crawl"``.
    """
    app = Flask(__name__)
    app.config.from_mapping(
        DATABASE_URL=default_url(),
        AUTO_UPGRADE=True,
        STALE_SECONDS=120.0,
        ACTIVE_SECONDS=30.0,
        COMMAND_TIMEOUT_SECONDS=60.0,
        POLL_INTERVAL_MS=3000,
        MAX_LOG_PAGE=10000,
        JSON_SORT_KEYS=False,
        ALLOWED_HOSTS=LOOPBACK_HOSTS,
        AUTH_TOKEN=None,
        # The CLI server passes --root (default: its directory); a WSGI
        # setup lists its folders here. None: any folder.
        PROJECT_ROOTS=None,
        ALLOW_API_REGISTRATION=True,
        MAX_CONTENT_LENGTH=16 << 20,
        MAX_ARGS_BYTES=64 << 10,
        MAX_COMMAND_BYTES=16 << 10,
    )
    if config:
        app.config.update(config)
    apply_defaults(app.config)
    engine = make_engine(app.config["DATABASE_URL"])
    if app.config["AUTO_UPGRADE"]:
        upgrade(engine)
    app.extensions["kusari_ui"] = {
        "engine": engine,
        "factory": make_session_factory(engine),
        # Filled in by a background Crawler (kusari-ui server) while it runs.
        "crawl": CrawlState(),
    }
    app.json.sort_keys = False  # type: ignore[attr-defined]
    install_access(app)
    register_api(app)
    register_error_handlers(app)
    app.register_blueprint(pages_bp)

    @app.teardown_appcontext
    def _close_session(_exc: BaseException | None) -> None:
        session = g.pop("db", None)
        if session is not None:
            session.close()

    @app.after_request
    def _security_headers(resp: Response) -> Response:
        # Everything is same-origin and bundled: forbid inline script and any
        # third-party origin, so even an escaping bug cannot run injected code.
        resp.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; "
            "script-src 'self'; object-src 'none'; frame-ancestors 'none'; "
            "base-uri 'none'",
        )
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("Referrer-Policy", "no-referrer")
        return resp

    return app
