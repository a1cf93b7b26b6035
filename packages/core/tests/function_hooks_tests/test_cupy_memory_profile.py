"""Tests of kusari.function_hooks.CupyMemoryProfileHook."""

from __future__ import annotations

import io

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.backends import cuda
from kusari.function_hooks import CupyMemoryProfileHook


def test_requires_cupy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cuda, "available", False)
    with pytest.raises(RuntimeError, match="CuPy is required"):
        CupyMemoryProfileHook()


@pytest.mark.parametrize(
    "size, expected",
    [
        (0, (1, "B")),
        (1023, (1, "B")),
        (1024, (1024, "KiB")),
        (3 * 1024**3, (1024**3, "GiB")),
    ],
)
def test_choose_unit(size: int, expected: tuple[int, str]) -> None:
    hook = CupyMemoryProfileHook.__new__(CupyMemoryProfileHook)
    assert hook._choose_unit(size) == expected


def test_summary_and_report_from_history() -> None:
    hook = CupyMemoryProfileHook.__new__(CupyMemoryProfileHook)
    hook.call_history = [
        ("ReLU", 512, 0, 0),
        ("Exp", 2048, 4096, 0),
        ("ReLU", 512, 512, 1),
    ]
    assert hook.summary()["ReLU"] == {
        "used_bytes": 1024,
        "acquired_bytes": 512,
        "occurrence": 2,
    }
    out = io.StringIO()
    hook.print_report(file=out)
    rows = [line.split() for line in out.getvalue().splitlines()]
    assert rows == [
        ["FunctionName", "UsedBytes", "AcquiredBytes", "Occurrence"],
        # 'auto' (Chainer v7): one unit per column, the largest value's.
        ["ReLU", "1.00KiB", "0.50KiB", "2"],
        ["Exp", "2.00KiB", "4.00KiB", "1"],
    ]
    out = io.StringIO()
    hook.print_report(unit="auto_foreach", file=out)
    rows = [line.split() for line in out.getvalue().splitlines()]
    assert rows[1] == ["ReLU", "1.00KiB", "512.00B", "2"]
    out = io.StringIO()
    hook.print_report(unit="B", file=out)
    assert out.getvalue().splitlines()[2].split()[1] == "2048.00B"
    out = io.StringIO()
    hook.print_report(unit="KB", file=out)  # Chainer's name for KiB
    assert out.getvalue().splitlines()[2].split()[1] == "2.00KiB"
    with pytest.raises(ValueError, match="unit"):
        hook.print_report(unit="kb", file=io.StringIO())


@pytest.mark.gpu
@pytest.mark.skipif(not cuda.available, reason="CuPy is not available")
def test_records_gpu_memory() -> None:
    cuda.cupy.get_default_memory_pool().free_all_blocks()
    x = kusari.Variable(cuda.cupy.ones((256, 256), np.float32))
    with CupyMemoryProfileHook() as hook:
        F.sum(F.relu(x)).backward()
    summary = hook.summary()
    assert summary["ReLU"]["occurrence"] == 2
    assert summary["ReLU"]["used_bytes"] >= 256 * 256 * 4
    assert hook.total_used_bytes() >= summary["ReLU"]["used_bytes"]
    assert hook.total_acquired_bytes() >= 0
    assert all(depth >= 0 for *_, depth in hook.call_history)
