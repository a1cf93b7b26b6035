"""Migrations match the models; SQLite and a real PostgreSQL server both work."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import inspect

from kusari_ui import create_app
from kusari_ui.db import current_revision, make_engine, upgrade
from kusari_ui.models import Base


def test_migrations_match_models(tmp_path: Path) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    engine = make_engine(f"sqlite:///{tmp_path / 'm.sqlite'}")
    upgrade(engine)
    assert current_revision(engine) == "0003"
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []
    upgrade(engine)  # idempotent
    engine.dispose()


def test_upgrade_from_0001_keeps_runs(tmp_path: Path) -> None:
    from sqlalchemy import text

    engine = make_engine(f"sqlite:///{tmp_path / 'm.sqlite'}")
    upgrade(engine, "0001")
    now = "2026-01-01 00:00:00"
    with engine.begin() as conn:
        conn.execute(
            text("INSERT INTO projects (id, name, created_at) VALUES (1, 'p', :t)"),
            {"t": now},
        )
        conn.execute(
            text(
                "INSERT INTO results VALUES (7, 1, 'a', 'a', 'folder', 'unknown', "
                "'{}', '{\"loss\": 0.5}', 3, 0, 0, 0, 0, '', 0, 12.5, :t, :t)"
            ),
            {"t": now},
        )
    upgrade(engine)
    with engine.connect() as conn:
        row = conn.execute(
            text(
                "SELECT name, n_entries, last_activity, status_json, log_interval "
                "FROM results"
            )
        ).one()
    assert tuple(row) == ("a", 3, 12.5, "{}", 0.0)
    engine.dispose()


def test_downgrade_to_base(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'm.sqlite'}")
    upgrade(engine)
    upgrade_to_base(engine)
    assert set(inspect(engine).get_table_names()) == {"alembic_version"}
    engine.dispose()


def upgrade_to_base(engine) -> None:
    from alembic import command

    from kusari_ui.db import _alembic_config

    cfg = _alembic_config(engine)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "base")


_PG_INITDB = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
needs_postgres = pytest.mark.skipif(
    not _PG_INITDB, reason="PostgreSQL server binaries not installed (apt: postgresql)"
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    """A throwaway PostgreSQL cluster from Debian's binaries."""
    pytest.importorskip("psycopg2", reason="psycopg2 not installed")
    bins = _PG_INITDB
    bindir = os.path.dirname(bins[-1])
    base = tempfile.mkdtemp(prefix="kusari-ui-pg-")
    kwargs: dict = {}
    if os.geteuid() == 0:  # initdb refuses to run as root
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            user = pwd.getpwnam("nobody")
        os.chmod(base, 0o755)
        os.chown(base, user.pw_uid, user.pw_gid)

        kwargs["user"] = user.pw_uid
        kwargs["group"] = user.pw_gid
        kwargs["extra_groups"] = []
        kwargs["env"] = {**os.environ, "HOME": base}
    data = os.path.join(base, "data")
    port = _free_port()
    run = lambda *a: subprocess.run(  # noqa: E731
        a, check=True, capture_output=True, cwd=base, **kwargs
    )
    try:
        run(
            f"{bindir}/initdb", "-D", data, "-U", "kusari", "--auth=trust", "-E", "UTF8"
        )
        run(
            f"{bindir}/pg_ctl",
            "-D",
            data,
            "-w",
            "-l",
            os.path.join(base, "log"),
            "-o",
            f"-p {port} -k {base} -h 127.0.0.1",
            "start",
        )
    except (subprocess.CalledProcessError, OSError) as exc:
        shutil.rmtree(base, ignore_errors=True)
        pytest.fail(f"PostgreSQL is installed but could not be started: {exc}")
    try:
        yield f"postgresql+psycopg2://kusari@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [f"{bindir}/pg_ctl", "-D", data, "-m", "immediate", "stop"],
            capture_output=True,
            cwd=base,
            **kwargs,
        )
        shutil.rmtree(base, ignore_errors=True)


@needs_postgres
def test_postgresql_end_to_end(pg_url: str, make_run, project_dir: Path) -> None:
    make_run("a", n=1200, args={"lr": 0.1})
    make_run("b", n=10)
    app = create_app(
        {"TESTING": True, "DATABASE_URL": pg_url, "PROJECT_ROOTS": [project_dir]}
    )
    try:
        client = app.test_client()
        pid = client.post("/api/v1/projects", json={"path": str(project_dir)}).json[
            "project"
        ]["id"]
        assert client.post(f"/api/v1/projects/{pid}/crawl").json["newEntries"] == 1210
        rows = client.get(f"/api/v1/projects/{pid}/results").json["results"]
        assert [r["nEntries"] for r in rows] == [1200, 10]
        series = client.get(f"/api/v1/projects/{pid}/series?keys=main/loss").json
        assert len(series["series"]) == 2
        page = client.get(
            f"/api/v1/projects/{pid}/results/{rows[0]['id']}/logs?offset=999&limit=2"
        ).json
        assert [e["iteration"] for e in page["entries"]] == [1000, 1001]
        assert client.delete(f"/api/v1/projects/{pid}").status_code == 200
        engine = app.extensions["kusari_ui"]["engine"]
        assert current_revision(engine) == "0003"
        upgrade_to_base(engine)
        upgrade(engine)
    finally:
        app.extensions["kusari_ui"]["engine"].dispose()
