"""/logs pages, HTTP-logged runs and /series downsampling."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient
from ui_testing import crawl, make_entries, write_log


def _rid(client: FlaskClient, pid: int, name: str) -> int:
    rows = client.get(f"/api/v1/projects/{pid}/results").json["results"]
    return next(r["id"] for r in rows if r["name"] == name)


def test_log_pages(client: FlaskClient, project, make_run) -> None:
    make_run("a", n=2500)
    crawl(client, project["id"])
    base = (
        f"/api/v1/projects/{project['id']}/results/{_rid(client, project['id'], 'a')}"
    )
    page = client.get(f"{base}/logs?offset=990&limit=20").json
    assert page["total"] == 2500 and page["offset"] == 990
    assert [e["iteration"] for e in page["entries"]] == list(range(991, 1011))
    assert (
        client.get(f"{base}/logs?offset=2499").json["entries"][0]["iteration"] == 2500
    )
    assert client.get(f"{base}/logs?offset=5000").json["entries"] == []
    assert client.get(f"{base}/logs?limit=x").status_code == 400


def test_series_are_downsampled(client: FlaskClient, project, make_run) -> None:
    run = make_run("big", n=20_000)
    make_run("small", n=50)
    pid = project["id"]
    crawl(client, pid)
    big, small = _rid(client, pid, "big"), _rid(client, pid, "small")
    data = client.get(f"/api/v1/projects/{pid}/series?keys=main/loss").json
    by = {(s["resultId"], s["key"]): s["points"] for s in data["series"]}
    assert len(by[(small, "main/loss")]) == 50
    pts = by[(big, "main/loss")]
    assert 500 <= len(pts) <= 1026
    idx, epoch, it, elapsed, value = pts[-1]
    assert it == idx + 1 and elapsed == 0.25 * it and isinstance(value, float)
    # more entries arrive: the cached series grows without a full re-read
    write_log(run / "log", make_entries(20_100))
    crawl(client, pid)
    data = client.get(
        f"/api/v1/projects/{pid}/series?keys=main/loss,epoch&results={big}"
    ).json
    keys = sorted(s["key"] for s in data["series"])
    assert keys == ["epoch", "main/loss"]
    loss = next(s for s in data["series"] if s["key"] == "main/loss")
    assert loss["points"][-1][2] == 20_100


def test_series_input_errors(client: FlaskClient, project) -> None:
    pid = project["id"]
    assert client.get(f"/api/v1/projects/{pid}/series").status_code == 400
    r = client.get(f"/api/v1/projects/{pid}/series?keys=a&results=1,x")
    assert r.status_code == 400
    assert client.get("/api/v1/projects/77/series?keys=a").status_code == 404


def test_http_logged_run(client: FlaskClient) -> None:
    r = client.post(
        "/api/v1/client/runs",
        json={
            "project": "remote",
            "run": "r1",
            "args": {"lr": 0.1, "nan": float("nan")},
        },
    )
    assert r.status_code == 201
    pid, rid = r.json["project"]["id"], r.json["result"]["id"]
    assert r.json["result"]["args"] == {"lr": 0.1}
    base = f"/api/v1/projects/{pid}/results/{rid}"
    r = client.post(
        f"{base}/logs", json={"entries": [{"iteration": 1, "loss": 2.0}, 5]}
    )
    assert r.json == {"accepted": 1, "skipped": 1, "total": 1}
    client.post(f"{base}/logs", json={"entries": [{"iteration": 2, "loss": 1.0}]})
    assert client.get(f"{base}/logs").json["entries"][1] == {
        "iteration": 2,
        "loss": 1.0,
    }
    res = client.get(base).json["result"]
    assert res["lastValues"]["loss"] == 1.0 and res["status"] == "running"
    assert client.post(f"{base}/logs", json={"entries": {}}).status_code == 400
    # same names again: the same run
    again = client.post("/api/v1/client/runs", json={"project": "remote", "run": "r1"})
    assert again.status_code == 200 and again.json["result"]["id"] == rid
    assert client.patch(base, json={"status": "finished"}).json["result"]["status"] == (
        "finished"
    )
    # folder runs are read-only through this route
    assert client.get(f"{base}/commands").status_code == 409


def test_posting_logs_to_folder_run_conflicts(client: FlaskClient, project, make_run):
    make_run("a", n=3)
    crawl(client, project["id"])
    rid = _rid(client, project["id"], "a")
    r = client.post(
        f"/api/v1/projects/{project['id']}/results/{rid}/logs",
        json={"entries": [{"x": 1}]},
    )
    assert r.status_code == 409 and r.json["error"]["type"] == "conflict"


@pytest.mark.slow
def test_million_entry_run_charts_like_a_small_one(
    client: FlaskClient, project, make_run
) -> None:
    """A 1,000,000-entry log: bounded ingest memory, chart as cheap as 100."""
    import time

    run = make_run("huge", n=10)
    entries = make_entries(1_000_000)
    write_log(run / "log", entries)
    del entries
    make_run("tiny", n=100)
    pid = project["id"]
    # Each crawl reads a log for a bounded time (FILE_TIME_BUDGET): crawl
    # until nothing is new, as the background crawler would.
    total, n = 0, -1
    while n:
        n = crawl(client, pid)["newEntries"]
        total += n
    assert total == 1_000_100
    big, small = _rid(client, pid, "huge"), _rid(client, pid, "tiny")

    def timed(rid: int) -> tuple[float, int]:
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            r = client.get(
                f"/api/v1/projects/{pid}/series?keys=main/loss&results={rid}"
            )
            best = min(best, time.perf_counter() - t0)
        return best, len(r.data)

    (t_big, n_big), (t_small, _) = timed(big), timed(small)
    assert n_big < 120_000  # ~1,000 points, not 1,000,000
    assert t_big < 0.05 and t_big < 20 * max(t_small, 1e-3)
