"""Engine, sessions and Alembic migrations.

SQLite is the embedded default (``~/.kusari_ui/db.sqlite``); any SQLAlchemy
URL works (PostgreSQL is tested). SQLite runs in WAL mode so the crawler can
write while requests read.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from flask import current_app, g
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


def default_url() -> str:
    """The default database URL: ``$KUSARI_UI_DB`` or the per-user SQLite file.

    Example:
        >>> default_url().startswith(("sqlite:///", "postgresql"))  # doctest: +SKIP
        True
    """
    env = os.environ.get("KUSARI_UI_DB")
    if env:
        return env
    home = Path(os.environ.get("KUSARI_UI_HOME", Path.home() / ".kusari_ui"))
    return f"sqlite:///{home / 'db.sqlite'}"


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    # WAL lets the crawler thread write while request threads read.
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.close()


def make_engine(url: str) -> Engine:
    """Create an engine for ``url``, creating the SQLite folder if needed.

    Example:
        >>> engine = make_engine("sqlite://")
    """
    u = make_url(url)
    kwargs: dict[str, Any] = {}
    if u.get_backend_name() == "sqlite":
        db = u.database
        if db and db != ":memory:":
            Path(db).expanduser().parent.mkdir(parents=True, exist_ok=True)
        else:
            # One shared connection so an in-memory DB is one DB.
            kwargs["poolclass"] = StaticPool
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
    engine = create_engine(url, **kwargs)
    if u.get_backend_name() == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    """A session factory bound to ``engine`` (objects survive commits)."""
    return sessionmaker(bind=engine, expire_on_commit=False)


def _alembic_config(engine: Engine) -> Any:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option(
        "sqlalchemy.url",
        engine.url.render_as_string(hide_password=False).replace("%", "%%"),
    )
    return cfg


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Create or migrate the schema to ``revision`` with Alembic.

    Example:
        >>> upgrade(make_engine("sqlite://"))
    """
    from alembic import command

    cfg = _alembic_config(engine)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)


def current_revision(engine: Engine) -> str | None:
    """The Alembic revision the database is at (None when unversioned)."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def get_db() -> Session:
    """The request-scoped session (created on first use, closed at teardown)."""
    if "db" not in g:
        g.db = current_app.extensions["kusari_ui"]["factory"]()
    session: Session = g.db
    return session
