"""The SAC / TD3 / DDPG example scripts train, save and demo on Pendulum."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "gym"


def _run(script: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    return subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    "script,extra",
    [
        ("train_sac_gym.py", ["--batch-size", "32"]),
        ("train_td3_gym.py", ["--batch-size", "32"]),
        ("train_ddpg_gym.py", ["--minibatch-size", "32", "--noise", "ou"]),
    ],
)
def test_example_trains_saves_and_demos(tmp_path, script, extra):
    out = tmp_path / "results"
    # 300 steps: one full 200-step (truncated) episode, updates from step 100.
    proc = _run(
        script,
        "--steps",
        "300",
        "--replay-start-size",
        "100",
        "--eval-interval",
        "150",
        "--eval-n-runs",
        "1",
        "--n-hidden-channels",
        "16",
        "--outdir",
        str(out),
        *extra,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    (run,) = list(out.iterdir())
    scores = (run / "scores.txt").read_text().splitlines()
    assert len(scores) >= 3  # header + evaluations at steps 150 and 300
    finished = run / "300_finish"
    assert (
        finished / "q_func1.npz" if "ddpg" not in script else finished / "model.npz"
    ).exists()
    demo = _run(
        script,
        "--demo",
        "--load",
        str(finished),
        "--eval-n-runs",
        "1",
        "--n-hidden-channels",
        "16",
        "--outdir",
        str(tmp_path / "demo"),
        cwd=tmp_path,
    )
    assert demo.returncode == 0, demo.stderr[-3000:]
    assert "n_runs: 1 mean:" in demo.stdout
