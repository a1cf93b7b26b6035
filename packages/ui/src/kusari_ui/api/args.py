"""``/api/v1/projects/<id>/results/<id>/args``: a run's arguments."""

from __future__ import annotations

import json

from flask import Blueprint, jsonify
from flask.typing import ResponseReturnValue

from kusari_ui.api.common import get_result

bp = Blueprint("args", __name__)


@bp.get("/projects/<int:project_id>/results/<int:result_id>/args")
def get_args(project_id: int, result_id: int) -> ResponseReturnValue:
    """The run's ``args`` (``{}`` if it has none)."""
    result = get_result(project_id, result_id)
    return jsonify({"args": json.loads(result.args_json or "{}")})
