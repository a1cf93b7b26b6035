"""LogReport: interval means, the JSON log file, and resume."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _training_helpers import build_real_trainer, mock_trainer, reporting_trainer

from kusari import reporter
from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import extensions


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
    log_report = extensions.LogReport(
        keys=["loss"], trigger=(3, "iteration"), filename="log_{iteration}"
    )
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


def test_log_report_with_real_training(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(2, "epoch"))
    trainer.extend(extensions.LogReport())
    trainer.run()
    log = trainer.get_extension("LogReport").log
    assert [e["epoch"] for e in log] == [1, 2]
    assert {"main/loss", "main/accuracy"} <= set(log[0])


def test_log_name_none_writes_no_file(tmp_path):
    # As in Chainer v7, filename=None falls back to log_name ('log'), so
    # it is log_name=None that turns the file off.
    trainer = reporting_trainer(tmp_path)
    log_report = extensions.LogReport(trigger=(3, "iteration"), log_name=None)
    trainer.extend(log_report)
    trainer.run()
    assert len(log_report.log) == 2
    assert not (tmp_path / "log").exists()


def test_default_trigger_is_one_epoch(tmp_path):
    trainer = reporting_trainer(tmp_path, stop=(8, "iteration"))
    log_report = extensions.LogReport()
    trainer.extend(log_report)
    trainer.run()
    # 4 iterations per epoch: means of 1..4 and 5..8.
    assert [e["loss"] for e in log_report.log] == [2.5, 6.5]


def test_resume_mid_interval_keeps_the_partial_summary(tmp_path):
    def run(trainer, log_report, start, stop):
        trainer.updater.iteration = start
        for _ in range(stop - start):
            trainer.updater.update()
            trainer.observation = {"v": float(trainer.updater.iteration)}
            log_report(trainer)

    trainer = mock_trainer(stop=None, out=str(tmp_path), iters_per_epoch=4)
    trainer._start_at = 0.0  # elapsed_time needs a started trainer
    first = extensions.LogReport(trigger=(4, "iteration"), log_name=None)
    run(trainer, first, 0, 2)
    s = DictionarySerializer()
    first.serialize(s)
    resumed = extensions.LogReport(trigger=(4, "iteration"), log_name=None)
    resumed.serialize(NpzDeserializer(s.target))
    run(trainer, resumed, 2, 4)
    assert [e["v"] for e in resumed.log] == [2.5]  # the mean of 1, 2, 3, 4


def test_variables_are_logged_as_floats(tmp_path):
    trainer = mock_trainer(stop=(2, "iteration"), out=str(tmp_path))

    def report(tr):
        import kusari

        reporter.report(
            {"x": kusari.Variable(np.asarray(tr.updater.iteration, np.float32))}
        )

    trainer.extend(report, name="r", priority=300)
    log_report = extensions.LogReport(trigger=(2, "iteration"))
    trainer.extend(log_report)
    trainer.run()
    assert log_report.log[0]["x"] == 1.5
    assert json.loads((tmp_path / "log").read_text())[0]["x"] == 1.5
    with pytest.raises(TypeError, match="LogReport"):
        extensions.LogReport(filname="x")
