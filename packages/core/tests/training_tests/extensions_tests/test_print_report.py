"""PrintReport: LogReport entries as table rows."""

from __future__ import annotations

import io

import pytest
from _training_helpers import reporting_trainer

from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import extensions


def test_print_report(tmp_path):
    trainer = reporting_trainer(tmp_path)
    out = io.StringIO()
    trainer.extend(extensions.LogReport(trigger=(3, "iteration")))
    trainer.extend(
        extensions.PrintReport(["iteration", "loss", "missing"], out=out),
        trigger=(3, "iteration"),
    )
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


def test_writes_to_stdout_by_default(tmp_path, capsys):
    trainer = reporting_trainer(tmp_path)
    trainer.extend(extensions.LogReport(trigger=(3, "iteration")))
    trainer.extend(extensions.PrintReport(["iteration", "loss"]))
    trainer.run()
    lines = capsys.readouterr().out.replace("\033[J", "").splitlines()
    assert lines[0].split() == ["iteration", "loss"]
    assert [line.split() for line in lines[1:]] == [["3", "2"], ["6", "5"]]


def test_columns_are_at_least_ten_wide_and_fit_long_names(tmp_path):
    trainer = reporting_trainer(tmp_path)
    out = io.StringIO()
    long_name = "a_rather_long_column_name"
    trainer.extend(extensions.LogReport(trigger=(3, "iteration")))
    trainer.extend(extensions.PrintReport(["loss", long_name], out=out))
    trainer.run()
    header = out.getvalue().splitlines()[0]
    assert header.index(long_name) == 10 + 2
    row = out.getvalue().replace("\033[J", "").splitlines()[1]
    assert row.startswith("2" + " " * 11)


def test_resumed_report_does_not_reprint_old_rows(tmp_path):
    trainer = reporting_trainer(tmp_path)
    out = io.StringIO()
    log_report = extensions.LogReport(trigger=(3, "iteration"))
    printer = extensions.PrintReport(["loss"], log_report=log_report, out=out)
    trainer.extend(printer)
    trainer.run()
    s = DictionarySerializer()
    printer.serialize(s)
    again = io.StringIO()
    resumed_log = extensions.LogReport(trigger=(3, "iteration"))
    resumed = extensions.PrintReport(["loss"], log_report=resumed_log, out=again)
    resumed.serialize(NpzDeserializer(s.target))
    assert len(resumed_log.log) == 2
    more = reporting_trainer(tmp_path / "again", stop=(3, "iteration"))
    more.updater.iteration = 6
    more.stop_trigger = lambda t: t.updater.iteration >= 9
    more.extend(resumed)
    more.run()
    rows = again.getvalue().replace("\033[J", "").splitlines()[1:]
    assert [r.split() for r in rows] == [["8"]]


def test_bad_log_report_is_named_in_the_error(tmp_path):
    trainer = reporting_trainer(tmp_path)
    with pytest.raises(TypeError, match="PrintReport.*LogReport"):
        extensions.PrintReport(["a"], log_report=[], out=io.StringIO())(trainer)
