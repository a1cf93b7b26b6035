"""DumpGraph (``extensions/computational_graph.py``): the dot file of a
reported variable's graph.

Not named ``test_computational_graph.py``: the test folders have no
``__init__.py``, so test module names must be unique across the core tests,
and ``computational_graph_tests/`` has that name.
"""

from __future__ import annotations

import shutil

import pytest
from _training_helpers import build_real_trainer, mock_trainer

import kusari
from kusari import reporter
from kusari.configuration import config
from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import extensions
from kusari.training.extensions import computational_graph


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


def test_written_once_with_styles_and_restores_a_true_flag(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(3, "iteration"))
    ext = extensions.DumpGraph(
        "main/loss",
        filename="g.dot",
        variable_style={"shape": "box"},
        function_style={"shape": "ellipse"},
    )
    trainer.extend(ext)
    calls = []
    trainer.extend(
        lambda t: calls.append(config.keep_graph_on_report), name="spy", priority=0
    )
    with kusari.using_config("keep_graph_on_report", True):
        trainer.run()
        assert config.keep_graph_on_report is True
    text = (tmp_path / "result" / "g.dot").read_text()
    assert "shape=box" in text.replace('"', "") and "ellipse" in text
    assert not ext.trigger(trainer)  # done: it never fires again


def test_deprecated_out_name_and_unknown_arguments(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(1, "iteration"))
    trainer.extend(extensions.DumpGraph("main/loss", out_name="old.dot"))
    trainer.run()
    assert (tmp_path / "result" / "old.dot").read_text().startswith("digraph")
    with pytest.raises(TypeError, match="DumpGraph"):
        extensions.DumpGraph("main/loss", outname="x.dot")


def test_resumed_after_the_dump_does_not_dump_again(tmp_path):
    first = build_real_trainer(tmp_path, stop=(1, "iteration"))
    ext = extensions.DumpGraph("main/loss")
    first.extend(ext)
    first.run()
    s = DictionarySerializer()
    ext.serialize(s)
    (tmp_path / "result" / "cg.dot").unlink()
    resumed = extensions.DumpGraph("main/loss")
    resumed.serialize(NpzDeserializer(s.target))
    second = build_real_trainer(tmp_path, stop=(2, "iteration"))
    second.extend(resumed)
    second.run()
    assert not (tmp_path / "result" / "cg.dot").exists()
    assert config.keep_graph_on_report is False


def test_missing_key_fails_and_still_restores_the_flag(tmp_path):
    trainer = mock_trainer(stop=(2, "iteration"), out=str(tmp_path))
    trainer.extend(lambda tr: reporter.report({"x": 1.0}), name="r", priority=300)
    trainer.extend(extensions.DumpGraph("main/loss"))
    with pytest.raises(KeyError):
        trainer.run(show_loop_exception_msg=False)
    assert config.keep_graph_on_report is False


def test_is_graphviz_available_asks_dot(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert computational_graph.is_graphviz_available() is False
    fake = tmp_path / "dot"
    fake.write_text("#!/bin/sh\nexit 3\n")
    fake.chmod(0o755)
    assert computational_graph.is_graphviz_available() is False
    fake.write_text("#!/bin/sh\nexit 0\n")
    assert computational_graph.is_graphviz_available() is True


def test_no_image_without_graphviz(tmp_path, monkeypatch):
    monkeypatch.setattr(computational_graph, "is_graphviz_available", lambda: False)
    trainer = build_real_trainer(tmp_path, stop=(1, "iteration"))
    trainer.extend(extensions.DumpGraph("main/loss", filename="g.dot"))
    trainer.run()
    assert sorted(p.name for p in (tmp_path / "result").glob("g.*")) == ["g.dot"]


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_png_rendered_next_to_the_dot_file_with_graphviz(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(1, "iteration"))
    trainer.extend(extensions.DumpGraph("main/loss", filename="g.dot"))
    trainer.run()
    png = (tmp_path / "result" / "g.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    # rendered to a side file and renamed: nothing else is left behind
    assert sorted(p.name for p in (tmp_path / "result").glob("g.*")) == [
        "g.dot",
        "g.png",
    ]
