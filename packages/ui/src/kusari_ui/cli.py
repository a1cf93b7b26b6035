"""The ``kusari-ui`` command line.

Example:
    $ kusari-ui db create
    $ kusari-ui project create -d ./result -n mnist
    $ kusari-ui server --port 5000
"""

from __future__ import annotations

import ipaddress
import logging
import sys

import click

from kusari_ui.db import current_revision, default_url, make_engine, upgrade


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@click.group()
@click.option(
    "--db",
    "db_url",
    default=None,
    envvar="KUSARI_UI_DB",
    help="SQLAlchemy URL (default: sqlite:///~/.kusari_ui/db.sqlite).",
)
@click.pass_context
def main(ctx: click.Context, db_url: str | None) -> None:
    """kusari-ui: browse, compare and steer kusari training runs."""
    ctx.obj = {"db": db_url or default_url()}


@main.group()
def db() -> None:
    """Create or migrate the database."""


@db.command("create")
@click.pass_obj
def db_create(obj: dict[str, str]) -> None:
    """Create the database schema (idempotent)."""
    engine = make_engine(obj["db"])
    upgrade(engine)
    click.echo(f"database ready at revision {current_revision(engine)}")


@db.command("upgrade")
@click.pass_obj
def db_upgrade(obj: dict[str, str]) -> None:
    """Migrate the database schema to the latest revision."""
    engine = make_engine(obj["db"])
    before = current_revision(engine)
    upgrade(engine)
    click.echo(f"database upgraded from {before} to {current_revision(engine)}")


@main.group()
def project() -> None:
    """Manage projects (folders holding result folders)."""


@project.command("create")
@click.option("-d", "--dir", "directory", required=True, help="Project folder.")
@click.option("-n", "--name", default=None, help="Name (default: folder name).")
@click.pass_obj
def project_create(obj: dict[str, str], directory: str, name: str | None) -> None:
    """Register a folder of training results as a project."""
    from kusari_ui.api.projects import create_project
    from kusari_ui.app import create_app
    from kusari_ui.errors import ApiError

    app = create_app({"DATABASE_URL": obj["db"]})
    with app.app_context():
        try:
            p = create_project(directory, name)
        except ApiError as exc:
            raise click.ClickException(exc.message) from None
        click.echo(f"project {p.id} {p.name!r} -> {p.path}")


@project.command("list")
@click.pass_obj
def project_list(obj: dict[str, str]) -> None:
    """List registered projects."""
    from sqlalchemy import select

    from kusari_ui.db import make_session_factory
    from kusari_ui.models import Project

    engine = make_engine(obj["db"])
    upgrade(engine)
    with make_session_factory(engine)() as s:
        for p in s.scalars(select(Project).order_by(Project.id)):
            click.echo(f"{p.id}\t{p.name}\t{p.path or '(HTTP-logged)'}")


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, type=int, show_default=True)
@click.option(
    "--allow-remote",
    is_flag=True,
    help="Allow binding a non-loopback address. The API has no authentication: "
    "anyone who can reach the port can read logs and stop jobs.",
)
@click.option("--crawl-interval", default=5.0, show_default=True, type=float)
@click.option("--debug", is_flag=True, help="Flask debug mode (never in public).")
@click.pass_obj
def server(
    obj: dict[str, str],
    host: str,
    port: int,
    allow_remote: bool,
    crawl_interval: float,
    debug: bool,
) -> None:
    """Serve the UI and API, crawling projects in the background."""
    if not _is_loopback(host) and not allow_remote:
        raise click.UsageError(
            f"refusing to serve on {host}: pass --allow-remote to serve beyond loopback"
        )
    from kusari_ui.app import create_app
    from kusari_ui.crawler import Crawler

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    config: dict[str, object] = {"DATABASE_URL": obj["db"]}
    if _is_loopback(host):
        # A page on another site could point its own DNS name at 127.0.0.1
        # (DNS rebinding); a loopback-only server answers loopback names only.
        config["TRUSTED_HOSTS"] = ["127.0.0.1", "localhost", "::1", "[::1]"]
    app = create_app(config)
    ext = app.extensions["kusari_ui"]
    crawler = Crawler(ext["factory"], crawl_interval, state=ext["crawl"])
    crawler.start()
    click.echo(f"kusari-ui on http://{host}:{port}/ (database {obj['db']})")
    try:
        app.run(host=host, port=port, debug=debug, use_reloader=False, threaded=True)
    finally:
        crawler.stop()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
