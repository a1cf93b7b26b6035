"""Hypothesis fuzzing of the log reader and the JSON API (bounded to seconds).

Examples are derandomized (a fixed seed per test) so CI sees the same cases
every run, and no example database is written into the tree.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ui_testing import crawl, make_entries, write_status

from kusari_ui.logreader import LogState, read_log

FUZZ = settings(
    max_examples=40,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
entries = st.lists(
    st.dictionaries(st.text(max_size=12), json_values, max_size=5), max_size=12
)


def _check_read(out: Any, size: int) -> None:
    if out is None:
        return
    assert 0 <= out.state.offset <= size
    for e in out.entries:
        assert isinstance(e, dict)
        # Everything ingested must be storable as UTF-8 JSON.
        json.dumps(e, allow_nan=False, ensure_ascii=False).encode("utf-8")


def _read_all(path: Path, max_bytes: int) -> tuple[list[dict[str, Any]], int]:
    state, got, calls = LogState(), [], 0
    while True:
        calls += 1
        assert calls < 10_000, "the reader did not make progress"
        out = read_log(path, state, max_bytes=max_bytes)
        _check_read(out, path.stat().st_size)
        if out is None:
            return got, calls
        if out.reset:
            got = []
        got += out.entries
        state = out.state
        if not out.more:
            return got, calls


@FUZZ
@given(data=st.binary(max_size=600), max_bytes=st.integers(1, 700))
def test_reader_survives_any_bytes(tmp_path: Path, data: bytes, max_bytes: int):
    path = tmp_path / "log"
    path.write_bytes(data)
    _read_all(path, max_bytes)


@FUZZ
@given(
    items=entries,
    junk=st.binary(min_size=1, max_size=6),
    where=st.floats(0, 1),
    max_bytes=st.integers(8, 400),
)
def test_reader_survives_junk_in_a_log(
    tmp_path: Path, items, junk: bytes, where: float, max_bytes: int
) -> None:
    raw = json.dumps(items, indent=1).encode()
    cut = int(where * len(raw))
    path = tmp_path / "log"
    path.write_bytes(raw[:cut] + junk + raw[cut:])
    got, _ = _read_all(path, max_bytes)
    # Junk may desynchronise the reader onto nested objects, never beyond.
    assert len(got) <= (raw + junk).count(b"{")


@FUZZ
@given(
    items=entries,
    splits=st.lists(st.integers(0, 12), max_size=3),
    mb=st.integers(8, 300),
)
def test_growing_log_reads_exactly_its_entries(
    tmp_path: Path, items, splits: list[int], mb: int
) -> None:
    """A log rewritten as it grows (LogReport's way) yields each entry once."""
    path = tmp_path / "log"
    state, got = LogState(), []
    for n in [*sorted(splits), len(items)]:
        path.write_text(json.dumps(items[:n], indent=4))
        while True:
            out = read_log(path, state, max_bytes=mb)
            _check_read(out, path.stat().st_size)
            if out is None:
                break
            if out.reset:
                got = []
            got += out.entries
            state = out.state
            if not out.more:
                break
    assert len(got) == len(items)


bodies = (
    st.dictionaries(
        st.sampled_from(
            ["path", "name", "project", "run", "args", "entries", "status", "body"]
        )
        | st.text(max_size=5),
        json_values,
        max_size=5,
    )
    | json_values
)


@FUZZ
@given(body=bodies, route=st.integers(0, 7))
def test_json_api_answers_every_body_in_its_error_shape(
    app: Flask, client, project, make_run, body: Any, route: int
) -> None:
    pid = project["id"]
    if (
        route in (5, 7)
        and not client.get(f"/api/v1/projects/{pid}/results").json["results"]
    ):
        write_status(make_run("r", n=3), "running")
        crawl(client, pid)
    rid = 1
    method, path = [
        ("POST", "/api/v1/projects"),
        ("PATCH", f"/api/v1/projects/{pid}"),
        ("POST", "/api/v1/client/runs"),
        ("POST", f"/api/v1/projects/{pid}/results"),
        ("PATCH", f"/api/v1/projects/{pid}/results/{rid}"),
        ("POST", f"/api/v1/projects/{pid}/results/{rid}/commands"),
        ("POST", f"/api/v1/projects/{pid}/results/{rid}/logs"),
        ("PATCH", f"/api/v1/projects/{pid}/results/{rid}"),
    ][route]
    data = json.dumps(body)  # NaN and Infinity too, as a careless client sends
    r = client.open(
        path, method=method, data=data, headers={"Content-Type": "application/json"}
    )
    assert r.status_code < 500, (method, path, body, r.json)
    if r.status_code >= 400:
        err = r.json["error"]
        assert set(err) == {"type", "message"} and err["message"]
    # The server still serves everything it holds.
    assert client.get(f"/api/v1/projects/{pid}/results").status_code == 200
    assert client.get("/api/v1/projects").status_code == 200


def test_fuzz_helpers_cover_a_real_log(tmp_path: Path) -> None:
    path = tmp_path / "log"
    path.write_text(json.dumps(make_entries(20)))
    got, calls = _read_all(path, 64)
    assert len(got) == 20 and calls > 1
