"""The ``kusari-ui`` command line.

Example:
    $ kusari-ui db create
    $ kusari-ui project create -d ./result -n mnist
    $ kusari-ui server --port 5000
"""

from __future__ import annotations

import ipaddress
import logging
import os
import secrets
import sys

import click

from kusari_ui.db import current_revision, default_url, make_engine, upgrade

WILDCARD_HOSTS = ("0.0.0.0", "::", "")


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

    # The command line is trusted: any folder, whatever PROJECT_ROOTS says.
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
    help="Allow binding a non-loopback address. Every request then needs the "
    "access token (--token, or one generated and printed at start).",
)
@click.option(
    "--token",
    envvar="KUSARI_UI_TOKEN",
    default=None,
    help="Access token required on every request ($KUSARI_UI_TOKEN). "
    "Generated when --allow-remote is given without one.",
)
@click.option(
    "--trusted-host",
    "trusted_hosts",
    multiple=True,
    metavar="NAME",
    help="A host name (or address) clients use to reach the server; repeatable. "
    "Loopback names are always trusted. '.example.org' trusts its subdomains.",
)
@click.option(
    "--root",
    "roots",
    multiple=True,
    type=click.Path(exists=True, file_okay=False),
    help="A folder under which the API may register projects; repeatable "
    "(default: the current directory).",
)
@click.option(
    "--no-api-registration",
    is_flag=True,
    help="Refuse registering projects through the API (use 'project create').",
)
@click.option("--crawl-interval", default=5.0, show_default=True, type=float)
@click.option("--debug", is_flag=True, help="Flask debug mode (never in public).")
@click.pass_obj
def server(
    obj: dict[str, str],
    host: str,
    port: int,
    allow_remote: bool,
    token: str | None,
    trusted_hosts: tuple[str, ...],
    roots: tuple[str, ...],
    no_api_registration: bool,
    crawl_interval: float,
    debug: bool,
) -> None:
    """Serve the UI and API, crawling projects in the background."""
    from kusari_ui.access import LOOPBACK_HOSTS

    loopback = _is_loopback(host)
    if not loopback and not allow_remote:
        raise click.UsageError(
            f"refusing to serve on {host}: pass --allow-remote to serve beyond loopback"
        )
    allowed = [*LOOPBACK_HOSTS, *trusted_hosts]
    if not loopback:
        if host not in WILDCARD_HOSTS:
            allowed.append(host)
        elif not trusted_hosts:
            raise click.UsageError(
                f"--host {host} listens on every address: name the host names "
                "or addresses clients will use with --trusted-host NAME "
                "(repeatable), so requests for other names are refused"
            )
    if token is not None and not token.strip():
        raise click.UsageError("--token must not be empty")
    generated = allow_remote and not token
    if generated:
        token = secrets.token_urlsafe(24)
    from kusari_ui.app import create_app
    from kusari_ui.crawler import Crawler

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    config: dict[str, object] = {
        "DATABASE_URL": obj["db"],
        # A page on another site could point its own DNS name at this
        # machine (DNS rebinding): answer only the names listed.
        "ALLOWED_HOSTS": allowed,
        "AUTH_TOKEN": token or None,
        "PROJECT_ROOTS": list(roots) or [os.getcwd()],
        "ALLOW_API_REGISTRATION": not no_api_registration,
    }
    app = create_app(config)
    ext = app.extensions["kusari_ui"]
    crawler = Crawler(ext["factory"], crawl_interval, state=ext["crawl"])
    crawler.start()
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    click.echo(f"kusari-ui on {url} (database {obj['db']})")
    click.echo(f"answering host names: {', '.join(allowed)}")
    if no_api_registration:
        click.echo("registering projects through the API: off")
    else:
        click.echo(
            "projects may be registered under: "
            + ", ".join(app.config["PROJECT_ROOTS"])
        )
    if token:
        where = "generated" if generated else "given"
        click.echo(f"access token ({where}); open the page once with it:")
        click.echo(f"    {url}?token={token}")
    try:
        app.run(host=host, port=port, debug=debug, use_reloader=False, threaded=True)
    finally:
        crawler.stop()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
