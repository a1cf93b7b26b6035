"""``/api/v1/client/runs``: find-or-create a run for :mod:`kusari_ui.client`."""

from __future__ import annotations

from flask import Blueprint, jsonify
from flask.typing import ResponseReturnValue
from sqlalchemy import select

from kusari_ui.api.common import json_body, name_field, project_json, result_json
from kusari_ui.api.results import clean_args, find_or_create_api_result
from kusari_ui.db import get_db
from kusari_ui.models import Project

bp = Blueprint("client", __name__)


@bp.post("/client/runs")
def client_run() -> ResponseReturnValue:
    """``{"project": name, "run": name, "args": {...}}`` -> project and result.

    A project that does not exist is created without a folder.
    """
    body = json_body()
    pname = name_field(body.get("project"), "project", 255)
    rname = name_field(body.get("run"), "run", 1000)
    args = clean_args(body.get("args"))
    session = get_db()
    project = session.scalar(select(Project).where(Project.name == pname))
    if project is None:
        project = Project(name=pname, path=None)
        session.add(project)
        session.commit()
    result, created = find_or_create_api_result(project.id, rname, args)
    return jsonify(
        {"project": project_json(project), "result": result_json(result)}
    ), 201 if created else 200
