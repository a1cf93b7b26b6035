"""Evaluator, DumpGraph, PlotReport, statistics, FailOnNonNumber, unchain."""

from __future__ import annotations

import numpy as np
import pytest
from _training_helpers import TinyMLP, build_real_trainer, make_dataset, mock_trainer

import kusari
from kusari import iterators, reporter
from kusari.configuration import config
from kusari.training import extensions


def test_evaluator_reports_prefixed_means(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(1, "epoch"))
    model = trainer.updater.get_optimizer("main").target
    modes = []

    def hook(evaluator):
        modes.append(config.train)

    it = iterators.SerialIterator(make_dataset(10), 4, repeat=False, shuffle=False)
    trainer.extend(extensions.Evaluator(it, model, eval_hook=hook))
    trainer.extend(extensions.LogReport())
    trainer.run()
    entry = trainer.get_extension("LogReport").log[0]
    assert "validation/main/loss" in entry and "validation/main/accuracy" in entry
    # The mean of per-batch means over batches of 4, 4, 2.
    x, t = kusari.dataset.concat_examples(make_dataset(10))
    losses = []
    with kusari.using_config("train", False), reporter.Reporter().scope({}):
        for sl in (slice(0, 4), slice(4, 8), slice(8, 10)):
            losses.append(float(kusari.functions.softmax_cross_entropy(
                model.predict(x[sl]), t[sl]).array))
    assert entry["validation/main/loss"] == pytest.approx(np.mean(losses), rel=1e-5)
    assert modes == [False]  # the hook runs inside evaluate(), in test mode


def test_evaluator_warns_on_repeating_iterator():
    it = iterators.SerialIterator(make_dataset(4), 2)
    with pytest.warns(UserWarning, match="repeat"):
        ev = extensions.Evaluator(it, TinyMLP())
    assert ev.get_target("main") is not None and ev.default_name == "validation"


def test_evaluator_with_eval_func_and_direct_call():
    model = TinyMLP()
    calls = []

    def eval_func(x, t):
        calls.append(len(x))
        reporter.report({"n": float(len(x))})

    it = iterators.SerialIterator(make_dataset(6), 4, repeat=False, shuffle=False)
    result = extensions.Evaluator(it, model, eval_func=eval_func)()
    assert calls == [4, 2] and result == {"n": 3.0}


def test_dump_graph(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(3, "iteration"))
    trainer.extend(extensions.DumpGraph("main/loss"))
    trainer.run()
    text = (tmp_path / "result" / "cg.dot").read_text()
    assert text.startswith("digraph") and "SoftmaxCrossEntropy" in text
    assert config.keep_graph_on_report is False
    assert extensions.dump_graph is extensions.DumpGraph


def test_dump_graph_rejects_non_variable(tmp_path):
    trainer = mock_trainer(stop=(2, "iteration"), out=str(tmp_path))
    trainer.extend(lambda tr: reporter.report({"x": 1.0}), name="r", priority=300)
    trainer.extend(extensions.DumpGraph("x"))
    with pytest.raises(TypeError, match="not a Variable"):
        trainer.run(show_loop_exception_msg=False)


@pytest.mark.skipif(not extensions.PlotReport.available(), reason="no matplotlib")
def test_plot_report_and_variable_statistics_plot(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(2, "epoch"))
    model = trainer.updater.get_optimizer("main").target
    trainer.extend(extensions.PlotReport(["main/loss"], "epoch", filename="loss.png"))
    trainer.extend(extensions.VariableStatisticsPlot(model), trigger=(1, "epoch"))
    trainer.run()
    out = tmp_path / "result"
    assert (out / "loss.png").read_bytes()[:4] == b"\x89PNG"
    _assert_plot_is_drawn(out / "loss.png")
    assert (out / "statistics.png").stat().st_size > 0
    with pytest.raises(TypeError):
        extensions.VariableStatisticsPlot(3)


def _assert_plot_is_drawn(path):
    from matplotlib.image import imread

    image = imread(str(path))
    h, w = image.shape[:2]
    assert 200 < w < 1200 and 200 < h < 1000, (w, h)
    # The plotting area holds more than one colour (curve, grid), not a blank.
    centre = image[h // 4 : 3 * h // 4, w // 4 : 3 * w // 4, :3]
    assert len(np.unique(centre.reshape(-1, 3), axis=0)) > 10


@pytest.mark.skipif(not extensions.PlotReport.available(), reason="no matplotlib")
def test_plot_report_labels_ticks_and_legend(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(3, "epoch"))
    model = trainer.updater.get_optimizer("main").target
    it = iterators.SerialIterator(make_dataset(10), 4, repeat=False, shuffle=False)
    trainer.extend(extensions.Evaluator(it, model))
    seen = {}

    def inspect(fig, ax, summary):
        seen["title"] = ax.get_title()
        seen["ylabel"] = ax.get_ylabel()
        seen["xticks"] = [t for t in ax.get_xticks() if 1 <= t <= 3]

    trainer.extend(
        extensions.PlotReport(
            ["main/loss", "validation/main/loss"],
            "epoch",
            postprocess=inspect,
            filename="loss.png",
        )
    )
    trainer.run()
    assert seen["title"] == "loss by epoch" and seen["ylabel"] == "loss"
    assert seen["xticks"] and all(float(t).is_integer() for t in seen["xticks"])
    _assert_plot_is_drawn(tmp_path / "result" / "loss.png")


def test_parameter_statistics(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(2, "iteration"))
    model = trainer.updater.get_optimizer("main").target
    stats = extensions.ParameterStatistics(model, trigger=(1, "iteration"),
                                           prefix="p")
    stats.register_statistics("norm", lambda x: np.linalg.norm(x))
    trainer.extend(stats)
    seen = []
    trainer.extend(lambda tr: seen.append(dict(tr.observation)), name="spy",
                   priority=0)
    trainer.run()
    obs = seen[-1]
    key = f"p/{getattr(model, 'name', 'None')}/W1/data"
    assert float(obs[key + "/mean"]) == pytest.approx(float(model.W1.array.mean()))
    assert float(obs[key + "/norm"]) == pytest.approx(
        float(np.linalg.norm(model.W1.array)), rel=1e-5)
    assert key + "/percentile/6" in obs
    assert any(k.endswith("/grad/max") for k in obs)


def test_fail_on_nonnumber(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(3, "iteration"))
    model = trainer.updater.get_optimizer("main").target

    def poison(tr):
        model.W1.array[0, 0] = np.nan

    trainer.extend(poison, name="poison", priority=300)
    trainer.extend(extensions.FailOnNonNumber())
    with pytest.raises(RuntimeError, match="diverge"):
        trainer.run(show_loop_exception_msg=False)


def test_unchain_variables(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(1, "iteration"))
    kept = []
    trainer.extend(lambda tr: kept.append(tr.observation["main/loss"]), name="k",
                   priority=50)
    trainer.extend(extensions.unchain_variables())
    with kusari.using_config("keep_graph_on_report", True):
        trainer.run()
    assert kept[0].creator is None


def test_evaluator_progress_bar(capsys):
    it = iterators.SerialIterator(make_dataset(6), 4, repeat=False, shuffle=False)
    extensions.Evaluator(it, TinyMLP(), progress_bar=True)()
    out = capsys.readouterr().out
    assert "validation [" in out and "100.00%" in out
