"""The PPO / A2C / A3C example scripts run end to end for a few hundred steps."""

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


def _run_dir(outdir: Path) -> Path:
    (run,) = list(outdir.iterdir())
    return run


@pytest.mark.parametrize(
    "script,extra",
    [
        ("train_ppo_gym.py", ["--num-envs", "2", "--update-interval", "128"]),
        ("train_a2c_gym.py", ["--num-envs", "2", "--use-gae"]),
        ("train_a3c_gym.py", ["--processes", "2"]),
    ],
)
def test_example_trains_saves_and_demos(tmp_path, script, extra):
    out = tmp_path / "results"
    proc = _run(
        script,
        "--env",
        "CartPole-v1",
        "--steps",
        "300",
        "--eval-interval",
        "150",
        "--eval-n-runs",
        "1",
        "--max-episode-len",
        "50",
        "--outdir",
        str(out),
        *extra,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    run = _run_dir(out)
    assert (run / "scores.txt").exists() and (run / "args.txt").exists()
    finished = [p for p in run.iterdir() if p.name.endswith("_finish")]
    assert finished and (finished[0] / "model.npz").exists()
    demo = _run(
        script,
        "--demo",
        "--load",
        str(finished[0]),
        "--eval-n-runs",
        "1",
        "--max-episode-len",
        "50",
        "--outdir",
        str(tmp_path / "demo"),
        cwd=tmp_path,
    )
    assert demo.returncode == 0, demo.stderr[-3000:]
    assert "n_runs: 1 mean:" in demo.stdout


def test_example_names_an_unsupported_space(tmp_path):
    proc = _run(
        "train_ppo_gym.py",
        "--env",
        "Blackjack-v1",
        "--steps",
        "10",
        "--outdir",
        str(tmp_path),
        cwd=tmp_path,
    )
    assert proc.returncode != 0
    assert "needs a 1-D Box observation space, got Tuple" in proc.stderr
