"""``/api/v1/projects/<p>/results/<r>/snapshots``: list and download snapshots.

Only regular files directly inside the run folder whose names start with
``snapshot`` are listed or served, after checking the resolved path is inside
the registered project folder.
"""

from __future__ import annotations

import os

from flask import Blueprint, jsonify, send_file
from flask.typing import ResponseReturnValue

from kusari_ui.api.common import get_result, run_dir
from kusari_ui.errors import not_found
from kusari_ui.paths import is_within

bp = Blueprint("snapshots", __name__)


def _is_snapshot(name: str) -> bool:
    return name.startswith("snapshot") and not name.endswith(".tmp")


@bp.get("/projects/<int:project_id>/results/<int:result_id>/snapshots")
def list_snapshots(project_id: int, result_id: int) -> ResponseReturnValue:
    """Snapshot files of the run, oldest first."""
    result = get_result(project_id, result_id)
    path = run_dir(result)
    root = result.project.path or ""
    items = []
    for e in os.scandir(path):
        if _is_snapshot(e.name) and e.is_file() and is_within(root, e.path):
            st = e.stat()
            items.append({"name": e.name, "size": st.st_size, "mtime": st.st_mtime})
    items.sort(key=lambda x: (x["mtime"], x["name"]))
    return jsonify({"snapshots": items})


@bp.get("/projects/<int:project_id>/results/<int:result_id>/snapshots/<path:name>")
def download_snapshot(
    project_id: int, result_id: int, name: str
) -> ResponseReturnValue:
    """Download one snapshot file."""
    result = get_result(project_id, result_id)
    path = run_dir(result)
    root = result.project.path or ""
    target = os.path.join(path, name)
    if (
        "/" in name
        or "\\" in name
        or not _is_snapshot(name)
        or not os.path.isfile(target)
        or not is_within(root, target)
    ):
        raise not_found(f"snapshot {name!r} not found in result {result_id}")
    return send_file(os.path.realpath(target), as_attachment=True, download_name=name)
