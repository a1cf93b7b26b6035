"""The DQN-family example scripts run end to end for a few hundred steps."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _run(script: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    return subprocess.run(
        [sys.executable, str(script), *args, "--logger-level", "30"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _only_run_dir(outdir: Path) -> Path:
    (run,) = list(outdir.iterdir())
    return run


@pytest.mark.parametrize(
    "extra",
    [
        [],
        ["--num-envs", "2", "--prioritized-replay", "--double"],
        ["--noisy-net-sigma", "0.5"],
        [
            "--update-interval",
            "8",
            "--n-times-update",
            "4",
            "--target-update-interval",
            "10",
            "--max-grad-norm",
            "10",
            "--adam-eps",
            "1e-8",
        ],
    ],
    ids=["single", "vector-prioritized-double", "noisy", "zoo-style"],
)
def test_train_dqn_gym_trains_saves_and_demos(tmp_path, extra):
    script = EXAMPLES / "gym" / "train_dqn_gym.py"
    out = tmp_path / "results"
    proc = _run(
        script,
        "--env",
        "CartPole-v1",
        "--steps",
        "300",
        "--replay-start-size",
        "100",
        "--eval-interval",
        "150",
        "--eval-n-runs",
        "1",
        "--outdir",
        str(out),
        *extra,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    run = _only_run_dir(out)
    log = json.loads((run / "log").read_text())
    assert [e["iteration"] for e in log][:1] and log[0]["iteration"] >= 150
    assert (run / "300_finish" / "model.npz").exists()
    if "--n-times-update" in extra:
        # 4 updates every 8 steps from step 100: about 100 by step 300.
        assert 90 <= log[-1]["n_updates"] <= 104
    # The demo builds the same network (noisy or not) and loads it.
    demo = _run(
        script,
        "--demo",
        "--load",
        str(run / "300_finish"),
        "--eval-n-runs",
        "1",
        "--outdir",
        str(tmp_path / "demo"),
        *extra,
        cwd=tmp_path,
    )
    assert demo.returncode == 0, demo.stderr[-3000:]
    assert "n_runs: 1 mean:" in demo.stdout


def test_train_dqn_gym_naf_on_box_actions(tmp_path):
    proc = _run(
        EXAMPLES / "gym" / "train_dqn_gym.py",
        "--env",
        "Pendulum-v1",
        "--steps",
        "250",
        "--replay-start-size",
        "100",
        "--eval-interval",
        "200",
        "--eval-n-runs",
        "1",
        "--outdir",
        str(tmp_path),
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_train_dqn_gym_names_an_unsupported_space(tmp_path):
    proc = _run(
        EXAMPLES / "gym" / "train_dqn_gym.py",
        "--env",
        "Blackjack-v1",
        "--steps",
        "10",
        "--outdir",
        str(tmp_path),
        cwd=tmp_path,
    )
    assert proc.returncode != 0
    assert "1-D Box observation space" in proc.stderr


@pytest.mark.parametrize(
    "script,extra",
    [
        (
            "train_dqn_ale.py",
            ["--arch", "dueling", "--agent", "DoubleDQN", "--prioritized"],
        ),
        ("train_rainbow.py", []),
        # Data-efficient Rainbow's knobs, evaluated on whole (capped) games.
        (
            "train_rainbow.py",
            [
                "--n-step",
                "5",
                "--update-interval",
                "1",
                "--eval-n-episodes",
                "1",
                "--max-frames",
                "400",
            ],
        ),
    ],
)
def test_atari_examples(tmp_path, script, extra):
    pytest.importorskip("ale_py", reason="ale-py (the atari extra) is not installed")
    pytest.importorskip("cv2", reason="OpenCV (the atari extra) is not installed")
    out = tmp_path / "results"
    proc = _run(
        EXAMPLES / "atari" / script,
        "--env",
        "ALE/Pong-v5",
        "--steps",
        "60",
        "--replay-start-size",
        "40",
        "--replay-capacity",
        "500",
        "--eval-interval",
        "50",
        "--eval-n-steps",
        "20",
        "--outdir",
        str(out),
        *extra,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    run = _only_run_dir(out)
    assert (run / "scores.txt").exists() and (run / "60_finish" / "model.npz").exists()
    if "--eval-n-episodes" in extra:
        rows = (run / "scores.txt").read_text().splitlines()[1:]
        # One evaluation of exactly one episode (column 2 counts episodes).
        assert rows and rows[0].split("\t")[1] == "1"
