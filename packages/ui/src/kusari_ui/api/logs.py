"""Log entries of runs and downsampled chart series.

* ``GET  /projects/<p>/results/<r>/logs?offset=&limit=``: raw entries.
* ``POST /projects/<p>/results/<r>/logs``: append entries (HTTP-logged runs).
* ``GET  /projects/<p>/series?keys=a,b&results=1,2``: downsampled series.
"""

from __future__ import annotations

import json
import time
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from flask.typing import ResponseReturnValue
from sqlalchemy import select

from kusari_ui.api.common import (
    MAX_ID,
    get_project,
    get_result,
    int_arg,
    json_body,
)
from kusari_ui.crawler import INGEST_LOCK as ingest_lock
from kusari_ui.crawler import ingest_entries
from kusari_ui.db import get_db
from kusari_ui.errors import ApiError, bad_request
from kusari_ui.logreader import sanitize
from kusari_ui.models import LogChunk, Result, SeriesCache, unpack_entries

bp = Blueprint("logs", __name__)

MAX_POST_ENTRIES = 10000
LOCK_WAIT = 20.0  # seconds a POST waits for a running crawl before 503


@bp.get("/projects/<int:project_id>/results/<int:result_id>/logs")
def get_logs(project_id: int, result_id: int) -> ResponseReturnValue:
    """A page of raw log entries, oldest first."""
    result = get_result(project_id, result_id)
    limit_max = int(current_app.config["MAX_LOG_PAGE"])
    offset = int_arg("offset", 0, 0, 1 << 40)
    limit = int_arg("limit", 1000, 1, limit_max)
    chunks = get_db().scalars(
        select(LogChunk)
        .where(
            LogChunk.result_id == result.id,
            LogChunk.start + LogChunk.count > offset,
            LogChunk.start < offset + limit,
        )
        .order_by(LogChunk.start)
    )
    entries: list[Any] = []
    for chunk in chunks:
        data = unpack_entries(chunk.data)
        lo = max(0, offset - chunk.start)
        entries.extend(data[lo : lo + limit - len(entries)])
    return jsonify({"entries": entries, "offset": offset, "total": result.n_entries})


@bp.post("/projects/<int:project_id>/results/<int:result_id>/logs")
def post_logs(project_id: int, result_id: int) -> ResponseReturnValue:
    """Append ``{"entries": [{...}, ...]}`` to a run logged over HTTP."""
    result = get_result(project_id, result_id)
    if result.source != "api":
        raise ApiError(409, "conflict", "folder runs are read from their log file")
    entries = json_body().get("entries")
    if not isinstance(entries, list):
        raise bad_request("field entries must be a list of objects")
    if len(entries) > MAX_POST_ENTRIES:
        raise bad_request(f"at most {MAX_POST_ENTRIES} entries per request")
    good = [sanitize(e) for e in entries if isinstance(e, dict)]
    session = get_db()
    # Concurrent posts to one run must not interleave; a long crawl must not
    # hold the client's request forever either.
    if not ingest_lock.acquire(timeout=LOCK_WAIT):
        raise ApiError(503, "busy", "a crawl is ingesting logs; try again later")
    try:
        session.refresh(result)
        ingest_entries(session, result, good, reset=False)
        result.last_activity = time.time()
        session.commit()
    finally:
        ingest_lock.release()
    return jsonify(
        {
            "accepted": len(good),
            "skipped": len(entries) - len(good),
            "total": result.n_entries,
        }
    )


def _id_list(raw: str | None) -> list[int] | None:
    if not raw:
        return None
    try:
        ids = [int(x) for x in raw.split(",") if x.strip()]
    except ValueError:
        raise bad_request("results must be comma-separated integers") from None
    # Ids beyond 64 bits name no run (and overflow the database driver).
    return [i for i in ids if 0 <= i <= MAX_ID]


@bp.get("/projects/<int:project_id>/series")
def get_series(project_id: int) -> ResponseReturnValue:
    """Downsampled series (at most ~1,000 points each) for charts.

    Points are ``[index, epoch, iteration, elapsed_time, value]``; the client
    picks its x axis. Built by string assembly from the stored caches, so a
    request costs the same for a run of 100 or 1,000,000 entries.
    """
    get_project(project_id)
    # Stored metric names never hold NUL (see logreader.sanitize).
    keys = [k for k in request.args.get("keys", "").split(",") if k and "\x00" not in k]
    if not keys:
        raise bad_request("query argument keys (comma-separated metrics) is required")
    ids = _id_list(request.args.get("results"))
    session = get_db()
    q = (
        select(SeriesCache.result_id, SeriesCache.key, SeriesCache.points)
        .join(Result, Result.id == SeriesCache.result_id)
        .where(Result.project_id == project_id, SeriesCache.key.in_(keys))
    )
    if ids is not None:
        q = q.where(SeriesCache.result_id.in_(ids))
    parts = []
    for rid, key, pts in session.execute(q.order_by(SeriesCache.result_id)):
        parts.append(
            f'{{"resultId":{int(rid)},"key":{json.dumps(key)},"points":{pts}}}'
        )
    return Response('{"series":[' + ",".join(parts) + "]}", mimetype="application/json")
