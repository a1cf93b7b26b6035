"""Shared setup of the example smoke tests."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

#: The examples folder of kusari-cv.
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _run_example(script: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    env["MPLBACKEND"] = "Agg"
    result = subprocess.run(
        [sys.executable, str(script), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result


@pytest.fixture
def run_example() -> Callable[..., subprocess.CompletedProcess]:
    """``run_example(script, *args, cwd=...)`` runs an example script in a
    fresh interpreter (one thread, no display), asserts that it succeeded and
    returns the finished process (its ``stdout``)."""
    return _run_example


@pytest.fixture
def examples_dir() -> Path:
    """The examples folder."""
    return EXAMPLES
