"""Tests of kusari.function_hooks.CUDAProfileHook."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.backends import cuda
from kusari.function_hooks import CUDAProfileHook


def test_requires_cupy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cuda, "available", False)
    with pytest.raises(RuntimeError, match="CuPy is required"):
        CUDAProfileHook()


@pytest.mark.gpu
@pytest.mark.skipif(not cuda.available, reason="CuPy is not available")
def test_ranges_are_pushed_and_popped(monkeypatch: pytest.MonkeyPatch) -> None:
    hook = CUDAProfileHook()
    events: list[str] = []

    class FakeNvtx:
        def RangePush(self, message: str) -> None:
            events.append(message)

        def RangePop(self) -> None:
            events.append("pop")

    hook._nvtx = FakeNvtx()
    x = kusari.Variable(cuda.cupy.ones(3, np.float32))
    with hook:
        F.sum(F.relu(x)).backward()
    assert events[:4] == ["ReLU.forward", "pop", "Sum.forward", "pop"]
    assert "ReLU.backward" in events
    assert events.count("pop") * 2 == len(events)


def _has_nvtx() -> bool:
    return cuda.available and hasattr(cuda.cupy.cuda, "nvtx")


@pytest.mark.gpu
@pytest.mark.skipif(not _has_nvtx(), reason="CuPy with NVTX support is not available")
def test_runs_with_real_nvtx() -> None:
    hook = CUDAProfileHook()
    with hook:
        F.relu(cuda.cupy.ones(3, np.float32))
