"""Tests of kusari.link_hooks.TimerHook."""

from __future__ import annotations

import io
import itertools

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari.function_hooks import _report
from kusari.link_hooks import TimerHook


class MLP(kusari.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(3, 4)
            self.l2 = L.Linear(4, 2)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


@pytest.fixture
def fake_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    ticks = itertools.count()
    monkeypatch.setattr(_report, "_clock", lambda: float(next(ticks)))


def test_nested_links(fake_clock: None) -> None:
    model = MLP()
    with TimerHook() as hook:
        model(np.ones((2, 3), np.float32))
    # As in Chainer v7, the history keeps class names, not the links (so a
    # hook does not keep a model alive).
    names = [name for name, _ in hook.call_history]
    assert names == ["Linear", "Linear", "MLP"]
    times = [t for _, t in hook.call_history]
    assert times == [1.0, 1.0, 5.0]
    assert hook.total_time() == 5.0
    assert hook.summary() == {
        "Linear": {"elapsed_time": 2.0, "occurrence": 2},
        "MLP": {"elapsed_time": 5.0, "occurrence": 1},
    }


def test_local_hook_and_report(fake_clock: None) -> None:
    model = MLP()
    hook = TimerHook()
    model.l1.add_hook(hook)
    model(np.ones((2, 3), np.float32))
    model(np.ones((2, 3), np.float32))
    assert list(hook.summary()) == ["Linear"]
    assert hook.summary()["Linear"]["occurrence"] == 2
    out = io.StringIO()
    hook.print_report(unit="ms", file=out)
    assert [line.split() for line in out.getvalue().splitlines()] == [
        ["LinkName", "ElapsedTime", "Occurrence"],
        ["Linear", "2000.00ms", "2"],
    ]
    with pytest.raises(ValueError, match="unit"):
        hook.print_report(unit="minutes", file=out)


def test_real_clock() -> None:
    layer = L.Linear(3, 2)
    with TimerHook() as hook:
        layer(np.ones((2, 3), np.float32))
    assert hook.total_time() > 0
    assert hook.call_history[0][0] == "Linear"


def test_print_report_auto_aligns_units(fake_clock: None) -> None:
    hook = TimerHook()
    hook.call_history = [("Linear", 2.5e-3), ("MLP", 1.5)]
    out = io.StringIO()
    hook.print_report(file=out)
    rows = [line.split() for line in out.getvalue().splitlines()[1:]]
    # 'auto': one unit, chosen for the largest time, on every row.
    assert rows == [["Linear", "0.00sec", "1"], ["MLP", "1.50sec", "1"]]
    out = io.StringIO()
    hook.print_report(unit="auto_foreach", file=out)
    rows = [line.split() for line in out.getvalue().splitlines()[1:]]
    assert rows == [["Linear", "2.50ms", "1"], ["MLP", "1.50sec", "1"]]
