"""``/api/v1/projects/<p>/results/<r>/commands``: steer a running job."""

from __future__ import annotations

import math
from typing import Any

from flask import Blueprint, jsonify
from flask.typing import ResponseReturnValue

from kusari_ui import commands as cmd_files
from kusari_ui.api.common import get_result, json_body, run_dir
from kusari_ui.errors import bad_request

bp = Blueprint("commands", __name__)


def _validate(name: Any, body: Any) -> dict[str, Any]:
    if name not in cmd_files.COMMAND_NAMES:
        raise bad_request(
            f"unknown command {name!r}; use one of {', '.join(cmd_files.COMMAND_NAMES)}"
        )
    if body is None:
        body = {}
    if not isinstance(body, dict):
        raise bad_request("field body must be a JSON object")
    if name == "adjust_hyperparams":
        hp = body.get("hyperparams")
        if not isinstance(hp, dict) or not hp:
            raise bad_request(
                "adjust_hyperparams needs body.hyperparams: {name: number}"
            )
        for k, v in hp.items():
            if (
                not isinstance(v, int | float)
                or isinstance(v, bool)
                or not math.isfinite(v)
            ):
                raise bad_request(f"hyperparameter {k!r} must be a finite number")
        opt = body.get("optimizer", "main")
        if not isinstance(opt, str):
            raise bad_request("body.optimizer must be a string")
        return {"optimizer": opt, "hyperparams": hp}
    return {}


@bp.get("/projects/<int:project_id>/results/<int:result_id>/commands")
def list_commands(project_id: int, result_id: int) -> ResponseReturnValue:
    """Command history with the job's responses (``pending`` until answered)."""
    path = run_dir(get_result(project_id, result_id))
    return jsonify({"commands": cmd_files.history(path)})


@bp.post("/projects/<int:project_id>/results/<int:result_id>/commands")
def post_command(project_id: int, result_id: int) -> ResponseReturnValue:
    """Send ``{"name": "stop"|"take_snapshot"|"adjust_hyperparams", "body"}``."""
    result = get_result(project_id, result_id)
    data = json_body()
    body = _validate(data.get("name"), data.get("body"))
    record = cmd_files.request_command(run_dir(result), str(data["name"]), body)
    record.update(status="pending", response=None, respondedAt=None)
    return jsonify({"command": record}), 201
