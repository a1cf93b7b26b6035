"""Launching small MPI jobs from the tests.

Every job runs under ``timeout`` in its own process group; on expiry the
whole group is killed, so no rank outlives the test. Open MPI's root and
oversubscription switches are set here (CI runs as root on 2 cores), and
each rank uses one BLAS/OpenMP thread.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).parent / "mpi_scripts"
MPIEXEC = shutil.which("mpiexec")


HAVE_MPI = MPIEXEC is not None
MPI_SKIP_REASON = (
    "mpiexec not found (install Open MPI: apt-get install openmpi-bin libopenmpi-dev)"
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``mpi`` skip, with the reason, where there is no mpiexec."""
    skip = pytest.mark.skipif(not HAVE_MPI, reason=MPI_SKIP_REASON)
    for item in items:
        if item.get_closest_marker("mpi") is not None:
            item.add_marker(skip)


@dataclass
class MpiResult:
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def mpi_env() -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        # A singleton MPI initialised in this pytest process leaves its own
        # variables behind; a fresh mpiexec must not inherit them.
        if not k.startswith(("OMPI_", "PMIX_", "OPAL_", "ORTE_"))
    }
    env.update(
        OMPI_ALLOW_RUN_AS_ROOT="1",
        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
        OMPI_MCA_btl_vader_single_copy_mechanism="none",
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        PYTHONUNBUFFERED="1",
    )
    return env


def run_mpi(
    n: int,
    script: str | Path,
    *args: str,
    timeout: float = 60.0,
    env: dict[str, str] | None = None,
) -> MpiResult:
    """Run ``python script args`` on ``n`` ranks; never hangs past ``timeout``."""
    assert MPIEXEC is not None
    cmd = [
        MPIEXEC,
        "--oversubscribe",
        "-n",
        str(n),
        "--bind-to",
        "none",
        sys.executable,
        str(SCRIPTS / script if not Path(script).is_absolute() else script),
        *args,
    ]
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env or mpi_env(),
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise AssertionError(
            f"mpiexec -n {n} {script} did not finish in {timeout} s\n"
            f"stdout:\n{out}\nstderr:\n{err}"
        ) from None
    return MpiResult(proc.returncode, out, err, time.perf_counter() - start)


@pytest.fixture
def mpi_environment() -> dict[str, str]:
    """The environment ``run_mpi`` uses, to extend before passing it as ``env``."""
    return mpi_env()


@pytest.fixture
def mpi() -> object:
    """``run_mpi``; the tests using it are marked ``mpi`` (skipped without MPI)."""
    return run_mpi
