"""bench_threads.py measures both libraries' peak memory alike: from the
resident size after the build, with the kernel's high-water mark reset, and
passes an allocator setting to both libraries' subprocesses."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_threads.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_bench_threads_under_test", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_CAN_RESET = Path("/proc/self/clear_refs").exists()


def test_reset_peak_says_whether_it_worked(bench, monkeypatch):
    # Linux resets through /proc; elsewhere (or when /proc refuses) the
    # benchmark is told, and the peak falls back to the process maximum.
    assert bench.reset_peak() is _CAN_RESET

    def refuse(*args, **kwargs):
        raise PermissionError("refused")

    monkeypatch.setattr(bench, "open", refuse, raising=False)
    assert bench.reset_peak() is False


def test_peak_reset_measures_only_what_follows(bench):
    if not _CAN_RESET:
        # No /proc here: test_reset_peak_says_whether_it_worked covers the
        # fallback; there is no high-water mark to reset.
        assert bench.reset_peak() is False
        return
    assert bench.reset_peak()
    mib = 1024
    big = np.ones(96 << 20, np.uint8)  # touched: resident
    high = bench.peak_kib()
    del big
    assert bench.reset_peak()
    base = bench.rss_now_kib()
    after_reset = bench.peak_kib()
    # The reset drops the earlier 96 MiB (freed, unmapped) from the peak.
    assert after_reset < high - 64 * mib
    assert after_reset - base < 16 * mib
    small = np.ones(48 << 20, np.uint8)
    grown = bench.peak_kib() - base
    assert 40 * mib <= grown < 64 * mib, grown
    del small


def test_peak_without_proc_falls_back_to_maxrss(bench, monkeypatch):
    monkeypatch.setattr(bench, "_status_kib", lambda key: None)
    assert bench.peak_kib() == bench._maxrss_kib() > 0
    assert bench.rss_now_kib() == bench._maxrss_kib()


def test_spawn_sets_the_mmap_threshold_for_either_library(bench, monkeypatch):
    seen = []

    def fake_run(cmd, env, capture_output, text):
        seen.append((cmd[3], env.get("MALLOC_MMAP_THRESHOLD_")))
        out = json.dumps({"time": 1.0, "peak_kib": 2, "delta_kib": 1})
        return SimpleNamespace(returncode=0, stdout=out + "\n", stderr="")

    monkeypatch.setattr(bench.subprocess, "run", fake_run)
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    for lib in ("kusari", "torch"):
        assert bench._spawn(lib, "vgg", 1, 1, False, 1 << 20)["delta_kib"] == 1
        bench._spawn(lib, "vgg", 1, 1, False, 0)
    assert seen == [
        ("kusari", str(1 << 20)),
        ("kusari", None),
        ("torch", str(1 << 20)),
        ("torch", None),
    ]


def test_negative_mmap_threshold_is_refused(bench, monkeypatch, capsys):
    monkeypatch.setattr(
        sys, "argv", ["bench_threads.py", "--malloc-mmap-threshold", "-1"]
    )
    with pytest.raises(SystemExit):
        bench.main()
    err = capsys.readouterr().err
    assert "--malloc-mmap-threshold" in err and "-1" in err


def test_trim_heap_returns_freed_heap_pages(bench):
    # Freed blocks below malloc's mmap threshold stay in the heap, resident;
    # the worker trims them before its baseline, or a step that reuses them
    # would show no growth of its own.
    import ctypes

    has_trim = hasattr(ctypes.CDLL(None), "malloc_trim")
    assert bench.trim_heap() is has_trim
    if not (has_trim and _CAN_RESET):
        return
    import kusari  # noqa: F401  (its malloc settings keep such blocks)

    blocks = [np.ones(1 << 20, np.uint8) for _ in range(48)]
    before = bench.rss_now_kib()
    # Every other block freed: holes in the heap that no top trim reaches
    # (where malloc maps such blocks on their own, freeing unmaps them).
    del blocks[::2]
    assert bench.trim_heap()
    assert bench.rss_now_kib() <= before - (16 << 10)
    del blocks


def test_worker_baseline_is_after_the_build(bench, monkeypatch, capsys):
    # The model and data (64 MiB, kept) are not part of the step's growth;
    # the step's own 32 MiB (transient) is.
    if not _CAN_RESET:
        # Without /proc the peak is the process maximum, which includes the
        # build: there is no step-only growth to check.
        assert bench.reset_peak() is False
        return
    from kusari.utils import threads

    kept = []

    def build(quick):
        kept.append(np.ones(64 << 20, np.uint8))

        def step():
            np.ones(32 << 20, np.uint8).sum()

        return step

    fake = ModuleType("_workloads_kusari")
    fake.BUILDERS = {"fake": build}  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "_workloads_kusari", fake)
    monkeypatch.setattr(sys, "path", list(sys.path))
    n = threads.get_num_threads()
    try:
        bench.worker("kusari", "fake", 1, 2, False)
    finally:
        threads.set_num_threads(n)
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert 28 << 10 <= out["delta_kib"] < 56 << 10, out
    assert kept


def test_worker_reports_cpu_over_wall(bench, monkeypatch, capsys):
    # One busy thread: at most about 1 (CPU time of all threads over wall
    # time; less where other processes share the core).
    def build(quick):
        x = np.ones(1 << 20)

        def step():
            for _ in range(20):
                np.sqrt(x, out=x)

        return step

    fake = ModuleType("_workloads_torch")
    fake.BUILDERS = {"fake": build}  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "_workloads_torch", fake)
    monkeypatch.setitem(sys.modules, "torch", SimpleNamespace(set_num_threads=int))
    monkeypatch.setattr(sys, "path", list(sys.path))
    bench.worker("torch", "fake", 1, 5, False)
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert 0.02 < out["util"] < 1.5, out


def test_table_shows_cpu_over_wall(bench, capsys):
    res = {
        ("lenet", lib, n): {"time": t, "util": u, "peak_kib": 1024, "delta_kib": 0}
        for lib, n, t, u in [
            ("kusari", 1, 0.04, 1.0),
            ("kusari", 2, 0.03, 1.9),
            ("torch", 1, 0.04, 1.0),
            ("torch", 2, 0.02, 2.0),
        ]
    }
    bench._print_table(["lenet"], [1, 2], ["kusari", "torch"], res, 1, False)
    out = capsys.readouterr().out
    assert "CPU/wall @2t" in out
    row = next(line for line in out.splitlines() if line.startswith("LeNet"))
    assert "1.9 / 2.0" in row and "1.33 / 2.00" in row


def test_spawn_sets_the_openblas_thread_timeout(bench, monkeypatch):
    seen = []

    def fake_run(cmd, env, capture_output, text):
        seen.append((cmd[3], env.get("OPENBLAS_THREAD_TIMEOUT")))
        out = json.dumps({"time": 1.0, "peak_kib": 2, "delta_kib": 1})
        return SimpleNamespace(returncode=0, stdout=out + "\n", stderr="")

    monkeypatch.setattr(bench.subprocess, "run", fake_run)
    monkeypatch.delenv("OPENBLAS_THREAD_TIMEOUT", raising=False)
    for lib in ("kusari", "torch"):
        bench._spawn(lib, "lenet", 2, 1, False, 0, 4)
        bench._spawn(lib, "lenet", 2, 1, False, 0)
    assert seen == [("kusari", "4"), ("kusari", None), ("torch", "4"), ("torch", None)]


@pytest.mark.parametrize("value", ["3", "31", "-1"])
def test_bad_openblas_thread_timeout_is_refused(bench, monkeypatch, capsys, value):
    monkeypatch.setattr(
        sys, "argv", ["bench_threads.py", "--openblas-thread-timeout", value]
    )
    with pytest.raises(SystemExit):
        bench.main()
    err = capsys.readouterr().err
    assert "--openblas-thread-timeout" in err and value in err


def test_every_workload_is_labelled_and_built_by_kusari(bench, monkeypatch):
    monkeypatch.setattr(sys, "path", [str(BENCH.parent)] + list(sys.path))
    import _workloads_kusari as W

    assert set(bench.WORKLOADS) == set(bench.LABELS) == set(W.BUILDERS)


@pytest.mark.parametrize("name", ["atari_f", "atari"])
def test_atari_workloads_run_the_nature_dqn_network(bench, monkeypatch, name):
    # The Nature-DQN rows build and run a step on the shared data, which
    # they leave as built (the links copy their initial weights).
    monkeypatch.setattr(sys, "path", [str(BENCH.parent)] + list(sys.path))
    import _shapes as S
    import _workloads_kusari as W

    data = S.atari_data()
    assert data["x"].shape == (S.ATARI_BATCH, 4, 84, 84)
    before = {k: v.copy() for k, v in data.items()}
    monkeypatch.setattr(S, "atari_data", lambda: data)
    step = W.BUILDERS[name](False)
    step()
    changed = [
        k for k in ("c1", "c2", "c3", "f1", "f2") if not (data[k] == before[k]).all()
    ]
    assert changed == []
    np.testing.assert_array_equal(data["x"], before["x"])
