"""``/api/v1/projects/<id>/results``: the runs of a project."""

from __future__ import annotations

import json
import math
from typing import Any

from flask import Blueprint, current_app, jsonify
from flask.typing import ResponseReturnValue
from sqlalchemy import select

from kusari_ui.api.common import (
    get_project,
    get_result,
    json_body,
    name_field,
    result_json,
)
from kusari_ui.db import get_db
from kusari_ui.errors import ApiError, bad_request
from kusari_ui.models import Result

bp = Blueprint("results", __name__)


def clean_args(args: Any) -> dict[str, Any]:
    """Validate run args sent over HTTP: a flat JSON object of scalars.

    Nested values are kept as their JSON text. Args larger than
    ``MAX_ARGS_BYTES`` as JSON are refused with 413: every runs-list
    response carries them.
    """
    if args is None:
        return {}
    if not isinstance(args, dict):
        raise bad_request("field args must be a JSON object")
    out: dict[str, Any] = {}
    try:
        for k, v in args.items():
            if isinstance(v, float) and not math.isfinite(v):
                continue
            out[str(k)] = (
                v
                if isinstance(v, str | int | float | bool) or v is None
                else (json.dumps(v))
            )
        size = len(json.dumps(out))
    except RecursionError:
        raise bad_request("field args nests too deeply") from None
    limit = int(current_app.config["MAX_ARGS_BYTES"])
    if size > limit:
        raise ApiError(
            413,
            "payload_too_large",
            f"field args is {size} bytes as JSON, more than this server's limit "
            f"of {limit} bytes (MAX_ARGS_BYTES)",
        )
    return out


def find_or_create_api_result(
    project_id: int, name: str, args: dict[str, Any]
) -> tuple[Result, bool]:
    """The HTTP-logged run ``name`` of a project, created if needed."""
    session = get_db()
    path_name = "api:" + name
    result = session.scalar(
        select(Result).where(
            Result.project_id == project_id, Result.path_name == path_name
        )
    )
    created = result is None
    if result is None:
        result = Result(
            project_id=project_id,
            path_name=path_name,
            name=name,
            source="api",
            status="running",
        )
        session.add(result)
    if args:
        result.args_json = json.dumps(args)
    session.commit()
    return result, created


@bp.get("/projects/<int:project_id>/results")
def list_results(project_id: int) -> ResponseReturnValue:
    """Every run of the project, with args and last metric values."""
    get_project(project_id)
    rows = get_db().scalars(
        select(Result).where(Result.project_id == project_id).order_by(Result.id)
    )
    return jsonify({"results": [result_json(r) for r in rows]})


@bp.post("/projects/<int:project_id>/results")
def post_result(project_id: int) -> ResponseReturnValue:
    """Create a run logged over HTTP: ``{"name": "...", "args": {...}}``."""
    get_project(project_id)
    body = json_body()
    name = name_field(body.get("name"), "name", 1000)
    result, created = find_or_create_api_result(
        project_id, name, clean_args(body.get("args"))
    )
    return jsonify({"result": result_json(result)}), 201 if created else 200


@bp.get("/projects/<int:project_id>/results/<int:result_id>")
def get_one(project_id: int, result_id: int) -> ResponseReturnValue:
    """One run."""
    return jsonify({"result": result_json(get_result(project_id, result_id))})


@bp.patch("/projects/<int:project_id>/results/<int:result_id>")
def patch_result(project_id: int, result_id: int) -> ResponseReturnValue:
    """Rename a run or set its status: ``{"name": ..., "status": ...}``."""
    result = get_result(project_id, result_id)
    body = json_body()
    if "name" in body:
        result.name = name_field(body["name"], "name", 1024)
    if "status" in body:
        if result.source != "api":
            raise ApiError(409, "conflict", "the job sets the status of folder runs")
        if body["status"] not in ("running", "finished", "stopped", "failed"):
            raise bad_request("status must be running, finished, stopped or failed")
        result.status = body["status"]
    get_db().commit()
    return jsonify({"result": result_json(result)})


@bp.delete("/projects/<int:project_id>/results/<int:result_id>")
def delete_result(project_id: int, result_id: int) -> ResponseReturnValue:
    """Forget a run (files are left alone; a folder run comes back on crawl)."""
    session = get_db()
    session.delete(get_result(project_id, result_id))
    session.commit()
    return jsonify({"deleted": result_id})
