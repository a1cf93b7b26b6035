"""The load benchmark still runs (tiny scale; the real run is `nox -s bench`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_ui.py"


def test_bench_smoke(tmp_path: Path) -> None:
    out = subprocess.run(
        [
            sys.executable,
            str(BENCH),
            "--runs",
            "2",
            "--entries",
            "300",
            "--requests",
            "5",
            "--jobs",
            "1",
            "--workdir",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = json.loads(out.stdout)
    assert report["runs"] == 2 and report["recrawl_new_entries"] == 100
    for key in ("results_list", "chart_5_runs_1_metric", "chart_1_run_4_metrics"):
        assert report[key]["p95_ms"] > 0
