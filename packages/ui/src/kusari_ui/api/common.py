"""Lookups and serialisers shared by the API blueprints."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from flask import current_app, request

from kusari_ui.db import get_db
from kusari_ui.errors import ApiError, bad_request, not_found
from kusari_ui.models import Project, Result
from kusari_ui.paths import resolve_inside
from kusari_ui.status import RunStatus, describe_result

MAX_ID = (1 << 63) - 1


def json_body() -> dict[str, Any]:
    """The request's JSON object; 400 if it is not one.

    Only ``application/json`` is accepted: a cross-site form cannot send it
    without a CORS preflight, which this server never grants.
    """
    if not request.is_json:
        raise ApiError(415, "unsupported_media_type", "send application/json")
    limit = current_app.config.get("MAX_CONTENT_LENGTH")
    # A body without Content-Length (chunked) is cut at the limit by the
    # server's stream, silently: a body that reaches the limit is too large.
    if limit is not None and request.content_length is None:
        if len(request.get_data(cache=True)) >= limit:
            raise ApiError(
                413,
                "payload_too_large",
                f"request body reaches this server's limit of {limit} bytes "
                "(MAX_CONTENT_LENGTH)",
            )
    try:
        data = request.get_json(silent=True)
    except RecursionError:
        raise bad_request("request body nests JSON too deeply") from None
    if not isinstance(data, dict):
        raise bad_request("request body must be a JSON object")
    return data


def name_field(value: Any, field: str, limit: int) -> str:
    """A non-empty name from the body, stripped and cut to ``limit``; 400 if
    it is not a string, is blank or holds a NUL (no database stores it)."""
    if not isinstance(value, str) or not value.strip():
        raise bad_request(f"field {field} must be a non-empty string")
    if "\x00" in value:
        raise bad_request(f"field {field} contains a NUL character")
    return value.strip()[:limit]


def check_id(kind: str, value: int) -> None:
    """404 for an id no database row can have (ids are signed 64-bit)."""
    if not 0 <= value <= MAX_ID:
        raise not_found(f"{kind} {value} not found (ids are below 2^63)")


def get_project(project_id: int) -> Project:
    """The project or a 404 naming it."""
    check_id("project", project_id)
    project = get_db().get(Project, project_id)
    if project is None:
        raise not_found(f"project {project_id} not found")
    return project


def get_result(project_id: int, result_id: int) -> Result:
    """The result of a project or a 404 naming both."""
    project = get_project(project_id)
    check_id("result", result_id)
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
        "warnings": run_warnings(result),
        "createdAt": result.created_at.isoformat() + "Z",
        "updatedAt": result.updated_at.isoformat() + "Z",
    }


def run_warnings(result: Result) -> list[str]:
    """Problems met reading the run's files, as sentences for the page."""
    try:
        data = json.loads(result.warnings_json or "{}")
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    out = []
    bad = data.get("log_bad_bytes")
    if isinstance(bad, int) and bad > 0:
        out.append(
            f"log: {bad} bytes that are not UTF-8 text were skipped "
            f"(the first at byte {data.get('log_first_bad', '?')})"
        )
    skipped = data.get("log_skipped")
    if isinstance(skipped, int) and skipped > 0:
        out.append(f"log: {skipped} malformed or non-object entries were skipped")
    for key in ("log", "args", "status"):
        text = data.get(key)
        if isinstance(text, str) and text:
            out.append(f"{key}: {text}")
    return out


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
