"""LogReport, PrintReport, ProgressBar, MicroAverage, observe_value/lr."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest
from _training_helpers import build_real_trainer, mock_trainer

from kusari import optimizers, reporter
from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import extensions


def reporting_trainer(tmp_path, stop=(6, "iteration")):
    trainer = mock_trainer(stop=stop, out=str(tmp_path), iters_per_epoch=4)

    def report(tr):
        reporter.report({"loss": float(tr.updater.iteration), "skip": np.zeros(2)})

    trainer.extend(report, name="report", priority=300)
    return trainer


def test_log_report_means_file_and_postprocess(tmp_path):
    trainer = reporting_trainer(tmp_path)

    def post(entry):
        entry["double"] = 2 * entry["loss"]

    log_report = extensions.LogReport(trigger=(3, "iteration"), postprocess=post)
    trainer.extend(log_report)
    trainer.run()
    log = log_report.log
    assert [e["loss"] for e in log] == [2.0, 5.0]
    assert [e["iteration"] for e in log] == [3, 6]
    assert [e["epoch"] for e in log] == [0, 1]
    assert log[1]["double"] == 10.0
    assert "skip" not in log[0] and "elapsed_time" in log[0]
    with open(tmp_path / "log") as f:
        assert json.load(f) == log
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_log_report_keys_filename_template_and_serialize(tmp_path):
    trainer = reporting_trainer(tmp_path)
    log_report = extensions.LogReport(keys=["loss"], trigger=(3, "iteration"),
                                      filename="log_{iteration}")
    trainer.extend(log_report)
    trainer.run()
    assert (tmp_path / "log_3").exists() and (tmp_path / "log_6").exists()
    s = DictionarySerializer()
    log_report.serialize(s)
    fresh = extensions.LogReport(keys=["loss"], trigger=(3, "iteration"))
    fresh.serialize(NpzDeserializer(s.target))
    assert fresh.log == log_report.log
    with pytest.raises(TypeError):
        extensions.LogReport(bogus=1)


def test_log_report_deprecated_log_name(tmp_path):
    trainer = reporting_trainer(tmp_path)
    trainer.extend(extensions.LogReport(trigger=(3, "iteration"), log_name="old"))
    trainer.run()
    assert (tmp_path / "old").exists()


def test_print_report(tmp_path):
    trainer = reporting_trainer(tmp_path)
    out = io.StringIO()
    trainer.extend(extensions.LogReport(trigger=(3, "iteration")))
    trainer.extend(extensions.PrintReport(["iteration", "loss", "missing"], out=out),
                   trigger=(3, "iteration"))
    trainer.run()
    lines = [line.replace("\033[J", "") for line in out.getvalue().splitlines()]
    assert lines[0].split() == ["iteration", "loss", "missing"]
    assert lines[1].split() == ["3", "2"]
    assert lines[2].split() == ["6", "5"]


def test_print_report_with_log_report_object(tmp_path):
    trainer = reporting_trainer(tmp_path)
    out = io.StringIO()
    log_report = extensions.LogReport(trigger=(3, "iteration"))
    trainer.extend(extensions.PrintReport(["loss"], log_report=log_report, out=out))
    trainer.run()
    assert len(out.getvalue().splitlines()) == 3
    with pytest.raises(TypeError):
        extensions.PrintReport(["a"], log_report=3)(trainer)


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
    bar = extensions.ProgressBar(training_length=(1000, "iteration"),
                                 update_interval=100, out=out)
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
    bar = extensions.ProgressBar(training_length=(2, "epoch"), update_interval=1,
                                 out=out)
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
    pattern = (r"^ *\d[\d.e+]* iters/sec\. Estimated time to finish: "
               r"\d+:\d\d:\d\d(\.\d+)?\.$")
    for line in lines:
        assert re.match(pattern, line), line
    assert "inf" not in out.getvalue()


def test_progress_bar_needs_length_for_unknown_stop_trigger(tmp_path):
    trainer = mock_trainer(stop=lambda t: t.updater.iteration >= 2, out=str(tmp_path))
    trainer.extend(extensions.ProgressBar(out=io.StringIO()))
    with pytest.raises(TypeError, match="training length"):
        trainer.run(show_loop_exception_msg=False)


def test_micro_average(tmp_path):
    trainer = mock_trainer(stop=(4, "iteration"), out=str(tmp_path))
    got = []

    def report(tr):
        i = tr.updater.iteration
        reporter.report({"correct": i, "total": 10})

    trainer.extend(report, name="report", priority=300)
    trainer.extend(extensions.MicroAverage("correct", "total", "acc",
                                           trigger=(2, "iteration")))
    trainer.extend(lambda tr: got.append(tr.observation.get("acc")), name="spy",
                   priority=0)
    trainer.run()
    assert got == [None, 0.15, None, 0.35]


def test_observe_value_and_lr(tmp_path):
    opt = optimizers.MomentumSGD(lr=0.25)
    trainer = mock_trainer(stop=(2, "iteration"), out=str(tmp_path))
    opt.setup(trainer.updater.optimizer.target)
    trainer.updater.optimizer = opt
    got = []
    trainer.extend(extensions.observe_lr(), trigger=(1, "iteration"))
    trainer.extend(extensions.observe_value("it", lambda t: t.updater.iteration),
                   trigger=(1, "iteration"))
    trainer.extend(lambda tr: got.append(dict(tr.observation)), name="spy")
    trainer.run()
    assert got == [{"lr": 0.25, "it": 1}, {"lr": 0.25, "it": 2}]


def test_log_report_with_real_training(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(2, "epoch"))
    trainer.extend(extensions.LogReport())
    trainer.run()
    log = trainer.get_extension("LogReport").log
    assert [e["epoch"] for e in log] == [1, 2]
    assert {"main/loss", "main/accuracy"} <= set(log[0])
