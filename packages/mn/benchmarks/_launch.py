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


def oversubscribed(n: int) -> bool:
    """Whether ``n`` more busy processes exceed this machine's cores now.

    Half a core of slack: a load average of a few tenths is background
    (daemons, the launcher itself), not another job holding a core, and with
    ``n`` equal to the number of cores a threshold of zero would call even
    an idle machine oversubscribed.
    """
    return os.getloadavg()[0] + n > (os.cpu_count() or 1) + 0.5


def yield_policy(n: int) -> tuple[bool, str]:
    """Whether jobs of ``n`` ranks should yield while waiting, and a note
    saying so with the load, for the benchmark's report.

    Decided once per benchmark run, so that all its jobs run alike.
    """
    load = os.getloadavg()[0]
    preset = os.environ.get("OMPI_MCA_mpi_yield_when_idle")
    yields = oversubscribed(n) if preset is None else preset not in ("0", "false")
    how = "waiting ranks yield their core" if yields else "waiting ranks spin"
    why = (
        "as set" if preset is not None else "oversubscribed" if yields else "cores free"
    )
    return yields, f"load average {load:.1f} on {os.cpu_count()} cores, {how} ({why})"


def mpiexec(
    n: int,
    script: str,
    *args: str,
    timeout: float = 600,
    yield_when_idle: bool | None = None,
) -> str:
    """Run ``python script args`` on ``n`` ranks; returns rank 0's stdout.

    ``yield_when_idle`` None decides from the load now (see
    :func:`yield_policy`).
    """
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
    if yield_when_idle is None:
        yield_when_idle = yield_policy(n)[0]
    if yield_when_idle:
        # A rank waiting in a collective spins on its core; when other jobs
        # hold the cores, it spins away the time slice its peer needs to
        # arrive, and a 1.5 ms Allreduce takes tens of ms, however it is
        # called. Open MPI yields instead when it knows it is oversubscribed
        # (more ranks than slots); it cannot see other jobs, so say it here.
        env["OMPI_MCA_mpi_yield_when_idle"] = "1"
    else:
        env["OMPI_MCA_mpi_yield_when_idle"] = "0"
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
