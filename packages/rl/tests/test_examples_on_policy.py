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


def _load_example(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ppo_example_zoo_options(tmp_path):
    import argparse

    import gymnasium as gym
    import numpy as np

    ppo = _load_example("train_ppo_gym")
    env = gym.make("Pendulum-v1")
    model = ppo.make_model(env.observation_space, env.action_space)
    var_before = model.pi.head.var_param.array.copy()
    ppo.orthogonal_init(model.pi, 0.01)
    ppo.orthogonal_init(model.v, 1.0)
    hidden = model.pi.mean.hidden_layers[1].W.array
    np.testing.assert_allclose(hidden @ hidden.T, 2.0 * np.eye(64), atol=1e-5)
    out = model.pi.mean.output.W.array
    np.testing.assert_allclose(out @ out.T, 1e-4 * np.eye(1), atol=1e-9)
    assert not model.v.model.output.b.array.any()
    np.testing.assert_array_equal(model.pi.head.var_param.array, var_before)

    class Agent:
        optimizer = argparse.Namespace(alpha=None)
        clip_eps = None

    agent = Agent()
    hooks = ppo.decay_hooks(argparse.Namespace(steps=1000, lr=1e-3, clip_eps=0.2))
    for hook in hooks:
        hook(None, agent, 250)
    assert agent.optimizer.alpha == pytest.approx(7.5e-4)
    assert agent.clip_eps == pytest.approx(0.15)
    proc = _run(
        "train_ppo_gym.py",
        "--env",
        "CartPole-v1",
        "--steps",
        "256",
        "--num-envs",
        "2",
        "--update-interval",
        "64",
        "--batchsize",
        "64",
        "--eval-interval",
        "128",
        "--eval-n-runs",
        "1",
        "--max-episode-len",
        "50",
        "--value-func-coef",
        "0.5",
        "--max-grad-norm",
        "0.5",
        "--linear-decay",
        "--orthogonal-init",
        "--outdir",
        str(tmp_path / "results"),
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
