"""PlotReport: interval means drawn against iterations or epochs."""

from __future__ import annotations

import json

import pytest
from _training_helpers import (
    assert_plot_is_drawn,
    build_real_trainer,
    make_dataset,
    reporting_trainer,
)

from kusari import iterators
from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import extensions


@pytest.mark.skipif(not extensions.PlotReport.available(), reason="no matplotlib")
def test_plot_report(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(2, "epoch"))
    trainer.extend(extensions.PlotReport(["main/loss"], "epoch", filename="loss.png"))
    trainer.run()
    out = tmp_path / "result"
    assert (out / "loss.png").read_bytes()[:4] == b"\x89PNG"
    assert_plot_is_drawn(out / "loss.png")


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
    assert_plot_is_drawn(tmp_path / "result" / "loss.png")


needs_matplotlib = pytest.mark.skipif(
    not extensions.PlotReport.available(), reason="no matplotlib"
)


def _points(tmp_path, **kwargs):
    """The plotted points of ``loss`` (= the iteration) after 6 iterations."""
    trainer = reporting_trainer(tmp_path)
    plot = extensions.PlotReport("loss", **kwargs)
    trainer.extend(plot)
    trainer.run()
    s = DictionarySerializer()
    plot.serialize(s)
    name = kwargs.get("filename", "plot.png")
    return json.loads(str(s.target[f"_plot_{name}"]))


@needs_matplotlib
def test_points_are_interval_means_against_the_x_key(tmp_path):
    assert _points(tmp_path, trigger=(3, "iteration")) == {"loss": [[3, 2.0], [6, 5.0]]}
    assert _points(tmp_path / "e", x_key="epoch", trigger=(2, "iteration")) == {
        "loss": [[0, 1.5], [1, 3.5], [1, 5.5]]
    }
    assert (tmp_path / "plot.png").exists()


@needs_matplotlib
def test_resume_keeps_the_points_drawn_so_far(tmp_path):
    trainer = reporting_trainer(tmp_path)
    plot = extensions.PlotReport("loss", trigger=(3, "iteration"), filename="p.png")
    trainer.extend(plot)
    trainer.run()
    s = DictionarySerializer()
    plot.serialize(s)
    resumed = extensions.PlotReport("loss", trigger=(3, "iteration"), filename="p.png")
    resumed.serialize(NpzDeserializer(s.target))
    more = reporting_trainer(tmp_path / "more", stop=(9, "iteration"))
    more.updater.iteration = 6
    more.extend(resumed)
    more.run()
    again = DictionarySerializer()
    resumed.serialize(again)
    assert json.loads(str(again.target["_plot_p.png"])) == {
        "loss": [[3, 2.0], [6, 5.0], [9, 8.0]]
    }


@needs_matplotlib
def test_nothing_is_written_before_a_value_is_reported(tmp_path):
    trainer = reporting_trainer(tmp_path)
    trainer.extend(extensions.PlotReport("absent", trigger=(3, "iteration")))
    trainer.run()
    assert not (tmp_path / "plot.png").exists()


def test_arguments_are_checked():
    with pytest.raises(TypeError, match="PlotReport"):
        extensions.PlotReport("loss", filname="x.png")


@needs_matplotlib
def test_deprecated_file_name_and_format_from_the_extension(tmp_path):
    trainer = reporting_trainer(tmp_path)
    trainer.extend(
        extensions.PlotReport("loss", trigger=(3, "iteration"), file_name="loss.svg")
    )
    trainer.run()
    assert b"<svg" in (tmp_path / "loss.svg").read_bytes()[:500]
