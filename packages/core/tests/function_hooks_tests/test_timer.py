"""Tests of kusari.function_hooks.TimerHook."""

from __future__ import annotations

import io
import itertools

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.backends import cuda
from kusari.function_hooks import TimerHook, _report


@pytest.fixture
def fake_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every clock reading is one second after the previous one."""
    ticks = itertools.count()
    monkeypatch.setattr(_report, "_clock", lambda: float(next(ticks)))


def test_forward_and_backward_are_recorded() -> None:
    x = kusari.Variable(np.arange(6, dtype=np.float32).reshape(2, 3) - 2)
    with TimerHook() as hook:
        y = F.relu(x)
        F.sum(y).backward()
    names = [name for name, _ in hook.call_history]
    # forward ReLU, Sum; backward Sum (builds BroadcastTo...), ReLU (ReLUGrad)
    assert names[:2] == ["ReLU", "Sum"]
    summary = hook.summary()
    assert summary["ReLU"]["occurrence"] == 2
    assert summary["Sum"]["occurrence"] == 2
    assert "ReLUGrad" in summary
    assert all(t >= 0 for _, t in hook.call_history)
    assert list(summary) == list(dict.fromkeys(names))


def test_total_time_counts_outermost_calls_only(fake_clock: None) -> None:
    x = kusari.Variable(np.ones((2, 3), np.float32))
    with TimerHook() as hook:
        y = F.relu(x)
    assert hook.call_history == [("ReLU", 1.0)]
    assert hook.total_time() == 1.0
    # Backward of ReLU runs ReLUGrad inside it: recorded, not added again.
    with TimerHook() as hook:
        y.grad = np.ones((2, 3), np.float32)
        y.backward()
    times = dict(hook.call_history)
    assert times["ReLUGrad"] == 1.0
    assert times["ReLU"] > times["ReLUGrad"]
    assert hook.total_time() == times["ReLU"]
    assert hook.summary()["ReLU"] == {"elapsed_time": times["ReLU"], "occurrence": 1}


def test_local_hook_on_one_function() -> None:
    hook = TimerHook()
    node = F.activation.relu.ReLU()
    node.add_hook(hook)
    node.apply((np.ones(3, np.float32),))
    F.tanh(np.ones(3, np.float32))  # not hooked
    assert [name for name, _ in hook.call_history] == ["ReLU"]


def test_summary_name_of_old_style_function() -> None:
    class Double(kusari.Function):
        def forward(self, inputs):
            return (inputs[0] * 2,)

        def backward(self, inputs, grad_outputs):
            return (grad_outputs[0] * 2,)

    with TimerHook() as hook:
        Double()(np.ones(2, np.float32))
    assert list(hook.summary()) == ["Double"]


def _report_lines(hook: TimerHook, **kwargs: str) -> list[str]:
    out = io.StringIO()
    hook.print_report(file=out, **kwargs)
    return out.getvalue().splitlines()


def test_print_report(fake_clock: None) -> None:
    with TimerHook() as hook:
        F.relu(np.ones(3, np.float32))
        F.exp(np.ones(3, np.float32))
        F.exp(np.ones(3, np.float32))
    lines = _report_lines(hook)
    assert [line.split() for line in lines] == [
        ["FunctionName", "ElapsedTime", "Occurrence"],
        ["ReLU", "1.00sec", "1"],
        ["Exp", "2.00sec", "2"],
    ]
    # Columns are right-aligned to a common width.
    assert len({len(line) for line in lines}) == 1
    assert _report_lines(hook, unit="ms")[1].split()[1] == "1000.00ms"


def test_print_report_auto_unit_aligned_to_largest() -> None:
    hook = TimerHook()
    hook.call_history = [("A", 2.5e-3), ("B", 3e-7), ("C", 1.5), ("D", 4e-5)]
    rows = {line.split()[0]: line.split()[1] for line in _report_lines(hook)[1:]}
    # Chainer v7: 'auto' picks the unit of the largest time for every row.
    assert rows == {"A": "0.00sec", "B": "0.00sec", "C": "1.50sec", "D": "0.00sec"}
    hook.call_history = [("A", 2.5e-3), ("B", 3e-7)]
    rows = {line.split()[0]: line.split()[1] for line in _report_lines(hook)[1:]}
    assert rows == {"A": "2.50ms", "B": "0.00ms"}


def test_print_report_auto_foreach_unit_per_row() -> None:
    hook = TimerHook()
    hook.call_history = [("A", 2.5e-3), ("B", 3e-7), ("C", 1.5), ("D", 4e-5)]
    lines = _report_lines(hook, unit="auto_foreach")
    rows = {line.split()[0]: line.split()[1] for line in lines[1:]}
    assert rows == {"A": "2.50ms", "B": "300.00ns", "C": "1.50sec", "D": "40.00us"}


def test_print_report_bad_unit() -> None:
    hook = TimerHook()
    hook.call_history = [("A", 1.0)]
    with pytest.raises(
        ValueError, match="unit must be 'auto', 'auto_foreach' or one of"
    ):
        hook.print_report(unit="hours", file=io.StringIO())


def test_print_report_default_file_is_stdout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    hook = TimerHook()
    hook.print_report()
    assert capsys.readouterr().out.split() == [
        "FunctionName",
        "ElapsedTime",
        "Occurrence",
    ]


def test_name_conflict() -> None:
    with TimerHook():
        with pytest.raises(KeyError):
            with TimerHook():
                pass


@pytest.mark.gpu
@pytest.mark.skipif(not cuda.available, reason="CuPy is not available")
def test_gpu_timing() -> None:
    x = kusari.Variable(cuda.cupy.ones((64, 64), np.float32))
    with TimerHook() as hook:
        F.sum(F.relu(F.matmul(x, x))).backward()
    # ReLU: its forward and its backward step. MatMul: its forward, its backward
    # step and the two MatMuls that backward step applies.
    assert hook.summary()["ReLU"]["occurrence"] == 2
    assert hook.summary()["MatMul"]["occurrence"] == 4
    assert hook.total_time() > 0
