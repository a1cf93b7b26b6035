"""Run a script through ``python -m kusari.compat`` in a fresh interpreter.

The aliases change the import system of the process that installs them, so
every script gets its own interpreter, pointed at a generated dataset root
(:mod:`chainer_offline_data`) so nothing is downloaded.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

#: Our own Chainer-style scripts (see scripts/*.py).
SCRIPTS = Path(__file__).resolve().parent / "scripts"


def run_with_alias(
    script: Path, args: list[str], cwd: Path, root: Path, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """``python -m kusari.compat script args...`` with ``root`` as the dataset
    root, one BLAS thread (test machines are shared) and no display."""
    env = dict(os.environ)
    env.update(
        KUSARI_DATASET_ROOT=str(root),
        MPLBACKEND="Agg",
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
    )
    for name in ("CHAINER_DTYPE", "KUSARI_DTYPE", "CHAINER_DATASET_ROOT"):
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "kusari.compat", str(script), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
