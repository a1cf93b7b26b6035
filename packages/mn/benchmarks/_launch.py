"""Run a benchmark script under mpiexec from a plain ``python`` invocation."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys


def under_mpi() -> bool:
    return any(
        k in os.environ for k in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK")
    )


def mpiexec(n: int, script: str, *args: str, timeout: float = 600) -> str:
    """Run ``python script args`` on ``n`` ranks; returns rank 0's stdout."""
    exe = shutil.which("mpiexec")
    if exe is None:
        raise SystemExit(
            "mpiexec not found: install Open MPI (apt-get install openmpi-bin "
            "libopenmpi-dev) to run this benchmark"
        )
    env = dict(os.environ)
    env.update(
        OMPI_ALLOW_RUN_AS_ROOT="1",
        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
    )
    cmd = [
        exe,
        "--oversubscribe",
        "-n",
        str(n),
        "--bind-to",
        "none",
        sys.executable,
        script,
        *args,
    ]
    proc = subprocess.run(
        cmd, capture_output=True, text=True, env=env, timeout=timeout, check=False
    )
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc.stdout
