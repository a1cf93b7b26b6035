"""Load benchmark for kusari-ui: ingest and API latency at scale.

Full scale is 200 runs x 100,000 LogReport entries each. ``--scale`` shrinks
both counts (``--scale 0.05``: 10 runs x 5,000 entries). Prints a JSON
summary: ingest time, peak memory, p50/p95 latency of the results list and
chart requests over real HTTP on 127.0.0.1.

Example:
    $ python packages/ui/benchmarks/bench_ui.py --scale 0.05
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import resource
import shutil
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from werkzeug.serving import WSGIRequestHandler, make_server

from kusari_ui import create_app
from kusari_ui.crawler import crawl_all


def _write_run(job: tuple[str, int, int]) -> None:
    path, n, seed = job
    rng = random.Random(seed)
    lr = 10 ** rng.uniform(-4, -1)
    entries = []
    for i in range(n):
        it = i + 1
        entries.append(
            {
                "main/loss": 2.0 / (1 + it * lr) + rng.random() * 0.05,
                "main/accuracy": 1 - 1 / (2 + it * lr),
                "validation/main/loss": 2.1 / (1 + it * lr),
                "validation/main/accuracy": 0.98 - 1 / (2 + it * lr),
                "lr": lr,
                "epoch": it // 500,
                "iteration": it,
                "elapsed_time": it * 0.01,
            }
        )
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "log"), "w") as f:
        json.dump(entries, f, indent=4)  # what LogReport writes
    with open(os.path.join(path, "args"), "w") as f:
        json.dump({"lr": lr, "batchsize": rng.choice([32, 64, 128]), "seed": seed}, f)


class _QuietHandler(WSGIRequestHandler):
    def log_request(self, *args: Any, **kwargs: Any) -> None:
        pass


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    k = max(0, min(len(xs) - 1, math.ceil(p / 100 * len(xs)) - 1))
    return xs[k] * 1000


def _timed_get(url: str) -> tuple[float, int]:
    t0 = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as resp:
        body = resp.read()
    return time.perf_counter() - t0, len(body)


def _latency(url: str, n: int) -> dict[str, float]:
    times, size = [], 0
    for _ in range(n):
        t, size = _timed_get(url)
        times.append(t)
    return {
        "p50_ms": round(_pct(times, 50), 2),
        "p95_ms": round(_pct(times, 95), 2),
        "max_ms": round(max(times) * 1000, 2),
        "bytes": size,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="multiplies runs (200) and entries per run (100,000)",
    )
    ap.add_argument("--runs", type=int, default=None)
    ap.add_argument("--entries", type=int, default=None)
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--workdir", default=None, help="keep data here (default: tmp)")
    ap.add_argument("--db", default=None, help="SQLAlchemy URL (default: SQLite)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args(argv)
    runs = args.runs or max(1, round(200 * args.scale))
    entries = args.entries or max(10, round(100_000 * args.scale))
    work = Path(args.workdir or tempfile.mkdtemp(prefix="kusari-ui-bench-"))
    proj = work / "project"
    report: dict[str, Any] = {"runs": runs, "entries_per_run": entries}
    try:
        t0 = time.perf_counter()
        jobs = [
            (str(proj / f"run{i:04d}"), entries, i)
            for i in range(runs)
            if not (proj / f"run{i:04d}" / "log").exists()
        ]
        with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
            pool.map(_write_run, jobs, chunksize=1)
        report["generate_s"] = round(time.perf_counter() - t0, 1)
        report["log_bytes"] = sum(f.stat().st_size for f in proj.glob("*/log"))
        db = args.db or f"sqlite:///{work / 'bench.sqlite'}"
        if args.db is None and (work / "bench.sqlite").exists():
            (work / "bench.sqlite").unlink()
        app = create_app({"DATABASE_URL": db, "PROJECT_ROOTS": [work]})
        client = app.test_client()
        pid = client.post("/api/v1/projects", json={"path": str(proj)}).json["project"][
            "id"
        ]
        factory = app.extensions["kusari_ui"]["factory"]
        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        t0 = time.perf_counter()
        stats = crawl_all(factory)
        report["ingest_s"] = round(time.perf_counter() - t0, 1)
        report["ingest_entries_per_s"] = round(
            stats.new_entries / max(report["ingest_s"], 1e-9)
        )
        report["peak_rss_mb"] = round(
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1
        )
        report["rss_before_ingest_mb"] = round(rss0 / 1024, 1)
        if db.startswith("sqlite:///"):
            report["db_mb"] = round(os.path.getsize(db[len("sqlite:///") :]) / 2**20, 1)
        t0 = time.perf_counter()
        crawl_all(factory)
        report["recrawl_unchanged_ms"] = round((time.perf_counter() - t0) * 1000, 1)
        # one live run grows by 100 entries: only the tail is parsed
        rows0 = client.get(f"/api/v1/projects/{pid}/results").json["results"]
        n0 = next(r["nEntries"] for r in rows0 if r["pathName"] == "run0000")
        _write_run((str(proj / "run0000"), n0 + 100, 0))
        t0 = time.perf_counter()
        grown = crawl_all(factory)
        report["recrawl_one_grown_run_ms"] = round((time.perf_counter() - t0) * 1000, 1)
        report["recrawl_new_entries"] = grown.new_entries

        server = make_server(
            "127.0.0.1", 0, app, threaded=True, request_handler=_QuietHandler
        )
        th = threading.Thread(target=server.serve_forever, daemon=True)
        th.start()
        base = f"http://127.0.0.1:{server.server_port}/api/v1/projects/{pid}"
        try:
            rows = json.loads(urllib.request.urlopen(base + "/results").read())[
                "results"
            ]
            ids = [r["id"] for r in rows]
            rng = random.Random(0)
            pick = ",".join(map(str, rng.sample(ids, min(5, len(ids)))))
            n = args.requests
            report["results_list"] = _latency(base + "/results", n)
            report["chart_5_runs_1_metric"] = _latency(
                f"{base}/series?keys=main/loss&results={pick}", n
            )
            report["chart_1_run_4_metrics"] = _latency(
                f"{base}/series?keys=main/loss,main/accuracy,validation/main/loss,"
                f"validation/main/accuracy&results={ids[0]}",
                n,
            )
            report["chart_all_runs_1_metric"] = _latency(
                f"{base}/series?keys=main/loss", max(5, n // 10)
            )
            report["logs_page_1000"] = _latency(
                f"{base}/results/{ids[-1]}/logs?offset={entries // 2}&limit=1000",
                max(5, n // 4),
            )
        finally:
            server.shutdown()
            server.server_close()
        app.extensions["kusari_ui"]["engine"].dispose()
        report["p95_target_met"] = all(
            report[k]["p95_ms"] < 100
            for k in ("results_list", "chart_5_runs_1_metric", "chart_1_run_4_metrics")
        )
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main(sys.argv[1:])
