"""ProgressBar: the redrawn block, speed and time estimates."""

from __future__ import annotations

import io
import re

import pytest
from _training_helpers import mock_trainer

from kusari.training import extensions


def test_progress_bar(tmp_path):
    trainer = mock_trainer(stop=(20, "iteration"), out=str(tmp_path))
    out = io.StringIO()
    trainer.extend(extensions.ProgressBar(update_interval=5, out=out))
    trainer.run()
    text = out.getvalue()
    assert "100.00%" in text and "iters/sec" in text
    assert "Estimated time to finish" in text
    assert text.count("this epoch") == 4


class _FakeClock:
    def __init__(self):
        self.now = 1000.0

    def perf_counter(self):
        return self.now


def _speed_lines(text):
    return [line for line in text.split("\n") if "iters/sec" in line]


def test_progress_bar_speed_needs_two_measurements(monkeypatch):
    # Called without initialize: the first redraw has one measurement only.
    from types import SimpleNamespace

    from kusari.training.extensions import progress_bar

    clock = _FakeClock()
    monkeypatch.setattr(progress_bar, "time", clock)
    updater = SimpleNamespace(iteration=0, epoch=0, epoch_detail=0.0)
    trainer = SimpleNamespace(updater=updater)
    out = io.StringIO()
    bar = extensions.ProgressBar(
        training_length=(1000, "iteration"), update_interval=100, out=out
    )
    seen = []
    for it, t in [(100, 1000.0), (200, 1004.0), (300, 1006.0)]:
        clock.now = t
        updater.iteration, updater.epoch_detail = it, it / 600
        bar(trainer)
        seen.append(_speed_lines(out.getvalue())[-1])
    assert seen[0] == "        -- iters/sec. Estimated time to finish: --."
    # 100 iterations in 4 s: 25 it/s; 800 left -> 32 s.
    assert seen[1] == "        25 iters/sec. Estimated time to finish: 0:00:32."
    # Moving window from the first measurement: 200 in 6 s; 700 left -> 21 s.
    assert seen[2] == "    33.333 iters/sec. Estimated time to finish: 0:00:21."
    assert "inf" not in out.getvalue()
    # The block is redrawn in place: erase, 4 lines, cursor 4 lines up.
    assert out.getvalue().count("\033[J") == 3
    assert out.getvalue().count("\033[4A") == 3


def test_progress_bar_window_and_epoch_unit(monkeypatch):
    from types import SimpleNamespace

    from kusari.training.extensions import progress_bar

    clock = _FakeClock()
    monkeypatch.setattr(progress_bar, "time", clock)
    updater = SimpleNamespace(iteration=0, epoch=0, epoch_detail=0.0)
    trainer = SimpleNamespace(updater=updater)
    out = io.StringIO()
    bar = extensions.ProgressBar(
        training_length=(2, "epoch"), update_interval=1, out=out
    )
    bar.initialize(trainer)
    bar.initialize(trainer)  # a second start measurement replaces the first
    for it in range(1, 151):
        # 10 it/s for the first 50 iterations, then 1 it/s.
        clock.now += 0.1 if it <= 50 else 1.0
        updater.iteration, updater.epoch_detail = it, it / 200
        updater.epoch = int(updater.epoch_detail)
        bar(trainer)
    last = _speed_lines(out.getvalue())[-1]
    # Only the last 100 measurements count: 100 iterations in 100 s, and
    # 0.5 epoch per 100 s leaves 1.25 epochs -> 250 s.
    assert last == "         1 iters/sec. Estimated time to finish: 0:04:10."
    assert "150 iter, 0 epoch / 2 epochs" in out.getvalue()


def test_progress_bar_first_redraw_in_a_run_has_a_speed(tmp_path):
    trainer = mock_trainer(stop=(20, "iteration"), out=str(tmp_path))
    out = io.StringIO()
    trainer.extend(extensions.ProgressBar(update_interval=5, out=out))
    trainer.run()
    lines = _speed_lines(out.getvalue())
    assert len(lines) == 4
    pattern = (
        r"^ *\d[\d.e+]* iters/sec\. Estimated time to finish: "
        r"\d+:\d\d:\d\d(\.\d+)?\.$"
    )
    for line in lines:
        assert re.match(pattern, line), line
    assert "inf" not in out.getvalue()


def test_progress_bar_needs_length_for_unknown_stop_trigger(tmp_path):
    trainer = mock_trainer(stop=lambda t: t.updater.iteration >= 2, out=str(tmp_path))
    trainer.extend(extensions.ProgressBar(out=io.StringIO()))
    with pytest.raises(TypeError, match="training length"):
        trainer.run(show_loop_exception_msg=False)
