"""bench_small_ops.py runs both chains, with Variables or with Parameters."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import kusari

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_small_ops.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_bench_small_ops_under_test", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("params", [False, True])
def test_main_reports_every_chain(bench, params, capsys) -> None:
    argv = ["--repeat", "1", "--inner", "1"] + (["--params"] if params else [])
    results = bench.main(argv)
    assert results["kusari"] > 0 and results["kusari_no_backprop"] > 0
    out = capsys.readouterr().out
    assert ("Parameters" if params else "Variables") in out


@pytest.mark.parametrize("params", [False, True])
def test_kusari_step_uses_the_asked_kind_and_backprops(bench, params, monkeypatch):
    made = []
    real = kusari.Parameter.__init__

    def spy(self, *args, **kwargs):
        made.append(self)
        real(self, *args, **kwargs)

    monkeypatch.setattr(kusari.Parameter, "__init__", spy)
    step = bench.kusari_step(backward=True, params=params)
    assert len(made) == (2 if params else 0)
    step()
    for p in made:
        assert p.grad is not None and np.all(np.isfinite(p.grad))
