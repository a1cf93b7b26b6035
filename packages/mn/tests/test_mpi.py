"""Multi-process tests: small jobs under mpiexec with 1, 2 and 3 ranks.

Odd sizes matter: uneven splits, wrap-around padding and rings of three
catch bugs that two ranks hide.
"""

from __future__ import annotations

import os
import re
import time

import numpy as np
import pytest

pytestmark = pytest.mark.mpi


@pytest.mark.parametrize("n", [1, 2, 3])
def test_checks(mpi, n):
    """Collectives, gradient averaging (backward writing into the buffer
    included), datasets, optimizer, evaluators, batch normalization and
    model-parallel functions against NumPy."""
    result = mpi(n, "check_all.py", timeout=120)
    assert result.returncode == 0, result.output
    for tag in (
        "CHECKS-OK",
        "GRAD-BUFFER-OK",
        "GRAD-DESTINATIONS-OK",
        "TRAINING-OK",
        "MODEL-PARALLEL-OK",
    ):
        for rank in range(n):
            assert f"{tag} {rank}" in result.stdout, result.output


@pytest.mark.parametrize("n", [1, 2, 3])
def test_ring_mean(mpi, n):
    """The ring reduce-scatter with the division fused, alone and forced
    into multi_node_mean_grad, against NumPy's mean."""
    result = mpi(n, "check_ring.py", timeout=120)
    assert result.returncode == 0, result.output
    for rank in range(n):
        assert f"RING-OK {rank}" in result.stdout, result.output


@pytest.mark.parametrize("n", [1, 2, 3])
def test_param_set_cache_and_resync(mpi, n):
    """The kept walk of a model follows every structural change, a
    resynchronization request from one rank reaches all, and the optimizers
    add no collective of their own to a step."""
    result = mpi(n, "check_param_set.py", timeout=120)
    assert result.returncode == 0, result.output
    for rank in range(n):
        assert f"PARAM-SET-OK {rank}" in result.stdout, result.output


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes (its parent has not reaped it yet).
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


def test_exception_on_one_rank_aborts_the_job(mpi, tmp_path):
    result = mpi(
        3,
        "fault_raise.py",
        "--rank",
        "1",
        "--at",
        "3",
        "--pid-dir",
        str(tmp_path),
        timeout=30,
    )
    assert result.returncode != 0
    assert result.seconds < 30
    assert "FINISHED-WITHOUT-FAILURE" not in result.stdout
    assert "uncaught exception on rank 1" in result.stderr, result.output
    assert "deliberate failure at iteration 3" in result.stderr
    pids = [int(p.read_text()) for p in sorted(tmp_path.glob("rank*.pid"))]
    assert len(pids) == 3, result.output
    deadline = time.time() + 10
    while any(_alive(p) for p in pids) and time.time() < deadline:
        time.sleep(0.1)
    assert not any(_alive(p) for p in pids), "a rank outlived the aborted job"


def test_scatter_dataset_misuse_fails_on_every_rank(mpi):
    result = mpi(3, "fault_scatter.py", timeout=30)
    assert result.returncode == 0, result.output
    out = result.stdout
    for rank in range(3):
        assert re.search(
            rf"small RANK {rank} ERROR DataSizeError: .*2 examples, fewer than the 3",
            out,
        ), out
        assert re.search(
            rf"mismatch RANK {rank} ERROR ValueError: .*different arguments.*seed",
            out,
        ), out
        assert f"after RANK {rank} got 3" in out


def _resume_run(mpi, tmp_path, mode):
    plain, killed = tmp_path / "plain", tmp_path / "killed"
    args = ["--resume-with", mode]
    result = mpi(2, "train_resume.py", "--out", str(plain), *args, timeout=60)
    assert result.returncode == 0, result.output
    result = mpi(
        2, "train_resume.py", "--out", str(killed), "--kill-at", "14", *args, timeout=60
    )
    assert result.returncode != 0
    assert "DONE" not in result.stdout
    result = mpi(2, "train_resume.py", "--out", str(killed), *args, timeout=60)
    assert result.returncode == 0, result.output
    # it resumed from the snapshot of iteration 12, not from scratch
    assert "START 0 iteration 13" in result.stdout, result.output
    assert "START 1 iteration 13" in result.stdout, result.output
    with np.load(plain / "final.npz") as a, np.load(killed / "final.npz") as b:
        assert sorted(a.files) == sorted(b.files)
        for key in a.files:
            assert a[key].tobytes() == b[key].tobytes(), key


def test_killed_job_resumes_bit_identically_from_snapshots(mpi, tmp_path):
    _resume_run(mpi, tmp_path, "snapshot")


@pytest.mark.slow
def test_killed_job_resumes_bit_identically_from_checkpoints(mpi, tmp_path):
    _resume_run(mpi, tmp_path, "checkpointer")


@pytest.mark.parametrize("n", [2, 3])
def test_exit_with_a_pending_double_buffered_reduction_is_clean(mpi, n):
    # The optimizer is collected (its function returned) while its last
    # Iallreduce is in flight, and one rank joins that reduction late. The
    # old at-exit wait went through a weak reference to the optimizer, so
    # here it waited for nothing: the 40 MB buffer was freed and unmapped,
    # and MPI_Finalize wrote the late rank's data into it (SIGSEGV in 9 of
    # 10 runs of this script before the fix). Reductions in flight are now
    # held, buffer and all, by the module and finished at exit.
    result = mpi(n, "exit_with_pending_reduction.py", timeout=60)
    assert result.returncode == 0, result.output
    for rank in range(n):
        assert f"RANK {rank} LEAVING" in result.stdout


@pytest.mark.parametrize("n", [2, 3])
def test_lazy_parameters_on_some_ranks_fail_on_every_rank(mpi, n):
    # Only the last rank initialized its lazy link before the first update:
    # it used to broadcast while the others averaged (a hang).
    result = mpi(n, "fault_lazy_params.py", timeout=30)
    assert result.returncode == 0, result.output
    out = result.stdout
    for rank in range(n):
        for case in ("plain", "double"):
            match = re.search(
                rf"{case} RANK {rank} ERROR in ([0-9.]+)s: MultiNodeOptimizer.update: "
                r"the ranks have different initialized parameters",
                out,
            )
            assert match, out
            assert float(match.group(1)) < 5, out
            assert f"{case} synced RANK {rank}" in out, out


@pytest.mark.parametrize("n", [2, 3])
def test_gradient_layout_mismatch_fails_on_every_rank(mpi, n):
    # Only the last rank's layout changes (its bias gradient is None, no
    # zero_fill): it used to gather layouts while the others entered the
    # gradient Allreduce, and the job hung until killed.
    result = mpi(n, "fault_grad_layout.py", timeout=30)
    assert result.returncode == 0, result.output
    out = result.stdout
    for rank in range(n):
        for case in ("first", "again", "double_buffering"):
            match = re.search(
                rf"{case} RANK {rank} ERROR in ([0-9.]+)s: multi_node_mean_grad: "
                r"the ranks have different gradients to average .*"
                rf"'/b' on rank 0, no gradient on rank {n - 1}.*zero_fill=True",
                out,
            )
            assert match, out
            assert float(match.group(1)) < 5, out
        assert f"recovered RANK {rank} mean {(n + 1) / 2}" in out, out
        assert f"done RANK {rank}" in out, out
