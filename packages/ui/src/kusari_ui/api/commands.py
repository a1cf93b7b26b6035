"""``/api/v1/projects/<p>/results/<r>/commands``: steer a running job."""

from __future__ import annotations

import json
import math
from typing import Any

from flask import Blueprint, current_app, jsonify
from flask.typing import ResponseReturnValue

from kusari_ui import commands as cmd_files
from kusari_ui.api.common import get_result, json_body, run_dir, run_status
from kusari_ui.errors import ApiError, bad_request

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
        out = {"optimizer": opt, "hyperparams": hp}
        # The job reads the whole command file at every check: keep each
        # command small so the file stays far below its read cap.
        size = len(json.dumps(out))
        limit = int(current_app.config["MAX_COMMAND_BYTES"])
        if size > limit:
            raise ApiError(
                413,
                "payload_too_large",
                f"command body is {size} bytes as JSON, more than this server's "
                f"limit of {limit} bytes (MAX_COMMAND_BYTES)",
            )
        return out
    return {}


@bp.get("/projects/<int:project_id>/results/<int:result_id>/commands")
def list_commands(project_id: int, result_id: int) -> ResponseReturnValue:
    """Command history with the job's responses.

    Unanswered commands are ``pending``, or ``timed_out`` after
    ``COMMAND_TIMEOUT_SECONDS``.
    """
    path = run_dir(get_result(project_id, result_id))
    timeout = float(current_app.config["COMMAND_TIMEOUT_SECONDS"])
    return jsonify({"commands": cmd_files.history(path, timeout=timeout)})


@bp.post("/projects/<int:project_id>/results/<int:result_id>/commands")
def post_command(project_id: int, result_id: int) -> ResponseReturnValue:
    """Send ``{"name": "stop"|"take_snapshot"|"adjust_hyperparams", "body"}``.

    Only to a run whose CommandsExtension is listening (``listening`` in the
    result JSON); 409 otherwise.
    """
    result = get_result(project_id, result_id)
    data = json_body()
    body = _validate(data.get("name"), data.get("body"))
    path = run_dir(result)
    status = run_status(result)
    if not status.listening:
        # A command nobody reads would sit in the folder and fire when some
        # later job (a resumed run) starts listening there: refuse it now.
        raise ApiError(
            409,
            "conflict",
            f"result {result_id} is not listening for commands "
            f"(status {status.status}): {status.reason}",
        )
    try:
        record = cmd_files.request_command(path, str(data["name"]), body)
    except PermissionError:
        raise ApiError(
            403,
            "permission_denied",
            f"cannot write the command file in the folder of result {result_id}: "
            "permission denied (the server's user needs write access to the run "
            "folder)",
        ) from None
    except OSError as exc:
        raise ApiError(
            500,
            "file_error",
            f"cannot write the command file in the folder of result {result_id}: "
            f"{exc.strerror or exc}",
        ) from None
    record.update(status="pending", response=None, respondedAt=None)
    return jsonify({"command": record}), 201
