"""``/api/v1/projects``: register, list, rename, unregister and crawl folders."""

from __future__ import annotations

import os

from flask import Blueprint, current_app, jsonify
from flask.typing import ResponseReturnValue
from sqlalchemy import func, select

from kusari_ui.access import check_registration
from kusari_ui.api.common import get_project, json_body, name_field, project_json
from kusari_ui.crawler import CrawlBusyError, crawl_project
from kusari_ui.db import get_db
from kusari_ui.errors import ApiError, bad_request
from kusari_ui.models import Project, Result

bp = Blueprint("projects", __name__)
# Seconds a request waits for a running crawl before answering 503.
LOCK_WAIT = 20.0


def create_project(
    path: str, name: str | None = None, *, from_api: bool = False
) -> Project:
    """Register the folder ``path`` (shared by the API and the CLI).

    Args:
        path: The folder.
        name: The project's name (default: the folder's name).
        from_api: The request came over HTTP: the folder must lie inside
            ``PROJECT_ROOTS`` and registration must be switched on (403
            otherwise). The command line is trusted as it is.

    Example:
        >>> create_project("/data/result", "mnist")  # doctest: +SKIP
    """
    if "\x00" in path:
        raise bad_request("field path contains a NUL character")
    if name is not None and "\x00" in name:
        raise bad_request("field name contains a NUL character")
    session = get_db()
    real = os.path.realpath(os.path.expanduser(path))
    if from_api:
        # Before looking at the folder: a refused caller learns nothing
        # about what exists outside the allowed roots.
        check_registration(path, real)
    if not os.path.isdir(real):
        raise bad_request(f"directory {path} does not exist")
    name = (name or os.path.basename(real) or real).strip()[:255]
    if session.scalar(select(Project).where(Project.name == name)) is not None:
        raise ApiError(409, "conflict", f"project named {name!r} already exists")
    if session.scalar(select(Project).where(Project.path == real)) is not None:
        raise ApiError(409, "conflict", f"directory {real} is already a project")
    project = Project(name=name, path=real)
    session.add(project)
    session.commit()
    return project


@bp.get("/projects")
def list_projects() -> ResponseReturnValue:
    """All projects with their number of runs, and whether indexing runs."""
    session = get_db()
    counts: dict[int, int] = {}
    for pid, n in session.execute(
        select(Result.project_id, func.count()).group_by(Result.project_id)
    ):
        counts[pid] = n
    projects = session.scalars(select(Project).order_by(Project.id))
    crawl = current_app.extensions["kusari_ui"]["crawl"]
    return jsonify(
        {
            "projects": [project_json(p, counts.get(p.id, 0)) for p in projects],
            # The background crawler's first pass is under way.
            "crawling": crawl.crawling,
        }
    )


@bp.post("/projects")
def post_project() -> ResponseReturnValue:
    """Register a folder: ``{"path": "...", "name": "..."}``."""
    body = json_body()
    path, name = body.get("path"), body.get("name")
    if not isinstance(path, str) or not path:
        raise bad_request("field path (a directory) is required")
    if name is not None and not isinstance(name, str):
        raise bad_request("field name must be a string")
    project = create_project(path, name, from_api=True)
    return jsonify({"project": project_json(project, 0)}), 201


@bp.get("/projects/<int:project_id>")
def get_one(project_id: int) -> ResponseReturnValue:
    """One project."""
    return jsonify({"project": project_json(get_project(project_id))})


@bp.patch("/projects/<int:project_id>")
def patch_project(project_id: int) -> ResponseReturnValue:
    """Rename a project: ``{"name": "..."}``."""
    project = get_project(project_id)
    project.name = name_field(json_body().get("name"), "name", 255)
    get_db().commit()
    return jsonify({"project": project_json(project)})


@bp.delete("/projects/<int:project_id>")
def delete_project(project_id: int) -> ResponseReturnValue:
    """Unregister a project (its files are left alone)."""
    session = get_db()
    session.delete(get_project(project_id))
    session.commit()
    return jsonify({"deleted": project_id})


@bp.post("/projects/<int:project_id>/crawl")
def crawl(project_id: int) -> ResponseReturnValue:
    """Crawl the project's folder now (the server also does it periodically)."""
    try:
        stats = crawl_project(get_db(), get_project(project_id), LOCK_WAIT)
    except CrawlBusyError as exc:
        raise ApiError(503, "busy", f"{exc}; try again later") from None
    return jsonify(
        {
            "newRuns": stats.new_runs,
            "updatedRuns": stats.updated_runs,
            "newEntries": stats.new_entries,
            "missingRuns": stats.missing_runs,
        }
    )
