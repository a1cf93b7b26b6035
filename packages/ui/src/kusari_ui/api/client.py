"""``/api/v1/client/runs``: find-or-create a run for :mod:`kusari_ui.client`."""

from __future__ import annotations

from flask import Blueprint, jsonify
from flask.typing import ResponseReturnValue
from sqlalchemy import select

from kusari_ui.api.common import json_body, project_json, result_json
from kusari_ui.api.results import clean_args, find_or_create_api_result
from kusari_ui.app import get_db
from kusari_ui.errors import bad_request
from kusari_ui.models import Project

bp = Blueprint("client", __name__)


@bp.post("/client/runs")
def client_run() -> ResponseReturnValue:
    """``{"project": name, "run": name, "args": {...}}`` -> project and result.

    A project that does not exist is created without a folder.
    """
    body = json_body()
    pname, rname = body.get("project"), body.get("run")
    if not isinstance(pname, str) or not pname.strip():
        raise bad_request("field project must be a non-empty string")
    if not isinstance(rname, str) or not rname.strip():
        raise bad_request("field run must be a non-empty string")
    session = get_db()
    project = session.scalar(select(Project).where(Project.name == pname.strip()))
    if project is None:
        project = Project(name=pname.strip()[:255], path=None)
        session.add(project)
        session.commit()
    result, created = find_or_create_api_result(
        project.id, rname.strip()[:1000], clean_args(body.get("args"))
    )
    return jsonify(
        {"project": project_json(project), "result": result_json(result)}
    ), 201 if created else 200
