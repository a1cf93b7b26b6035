"""Lookups and serialisers shared by the API blueprints."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from flask import current_app, request

from kusari_ui.app import get_db
from kusari_ui.errors import ApiError, bad_request, not_found
from kusari_ui.models import Project, Result
from kusari_ui.paths import resolve_inside
from kusari_ui.status import RunStatus, describe_result


def json_body() -> dict[str, Any]:
    """The request's JSON object; 400 if it is not one.

    Only ``application/json`` is accepted: a cross-site form cannot send it
    without a CORS preflight, which this server never grants.
    """
    if not request.is_json:
        raise ApiError(415, "unsupported_media_type", "send application/json")
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise bad_request("request body must be a JSON object")
    return data


def get_project(project_id: int) -> Project:
    """The project or a 404 naming it."""
    project = get_db().get(Project, project_id)
    if project is None:
        raise not_found(f"project {project_id} not found")
    return project


def get_result(project_id: int, result_id: int) -> Result:
    """The result of a project or a 404 naming both."""
    project = get_project(project_id)
    result = get_db().get(Result, result_id)
    if result is None or result.project_id != project.id:
        raise not_found(f"result {result_id} not found in project {project_id}")
    return result


def run_dir(result: Result) -> Path:
    """The run's folder, checked to be inside its project; 404/409 otherwise."""
    project = result.project
    if result.source != "folder" or project.path is None:
        raise ApiError(
            409, "conflict", f"result {result.id} was logged over HTTP: no folder"
        )
    path = resolve_inside(project.path, result.path_name)
    if path is None or not path.is_dir():
        raise not_found(
            f"folder of result {result.id} not found in project {project.id}"
        )
    return path


def project_json(project: Project, result_count: int | None = None) -> dict[str, Any]:
    """Serialise a project.

    ``indexing`` is true while the background crawler has not finished its
    first crawl of the project (its entry counts are still growing), be it
    during the server's first pass or for a project registered since.
    """
    crawl = current_app.extensions["kusari_ui"]["crawl"]
    out: dict[str, Any] = {
        "id": project.id,
        "name": project.name,
        "path": project.path,
        "createdAt": project.created_at.isoformat() + "Z",
        "crawledAt": project.crawled_at.isoformat() + "Z"
        if project.crawled_at
        else None,
        "indexing": bool(
            crawl.running
            and project.path is not None
            and (
                project.crawled_at is None
                or (crawl.current == project.id and not crawl.first_pass_done)
            )
        ),
    }
    if result_count is not None:
        out["resultCount"] = result_count
    return out


def run_status(result: Result) -> RunStatus:
    """The run's displayed status (see :mod:`kusari_ui.status`)."""
    return describe_result(result, time.time(), current_app.config)


def result_json(result: Result) -> dict[str, Any]:
    """Serialise a result with its args, last metric values and status.

    ``listening`` says whether a CommandsExtension reads commands now;
    ``commandsDisabledReason`` says why not, ``statusError`` why it failed.
    """
    st = run_status(result)
    return {
        "id": result.id,
        "projectId": result.project_id,
        "name": result.name,
        "pathName": result.path_name,
        "source": result.source,
        "status": st.status,
        "statusError": st.error,
        "listening": st.listening,
        "commandsDisabledReason": st.reason,
        "heartbeat": st.heartbeat,
        "lastWrite": result.last_activity or None,
        "args": json.loads(result.args_json or "{}"),
        "lastValues": json.loads(result.last_values_json or "{}"),
        "nEntries": result.n_entries,
        "createdAt": result.created_at.isoformat() + "Z",
        "updatedAt": result.updated_at.isoformat() + "Z",
    }


def int_arg(name: str, default: int, lo: int, hi: int) -> int:
    """An integer query argument clamped to ``[lo, hi]``; 400 if not an int."""
    raw = request.args.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise bad_request(f"query argument {name} must be an integer") from None
    return max(lo, min(hi, value))
