"""The matplotlib access of the plotting extensions (``_plot``)."""

from __future__ import annotations

import pytest

from kusari.training.extensions import _plot

pytestmark = pytest.mark.skipif(not _plot.check_available(), reason="no matplotlib")


def test_new_figure_needs_no_pyplot_and_saves_by_extension(tmp_path):
    fig = _plot.new_figure((3, 2))
    fig.add_subplot(111).plot([0, 1], [1, 0])
    _plot.save_figure(fig, str(tmp_path / "a.png"))
    _plot.save_figure(fig, str(tmp_path / "a.svg"))
    _plot.save_figure(fig, str(tmp_path / "noext"))
    assert (tmp_path / "a.png").read_bytes()[:4] == b"\x89PNG"
    assert b"<svg" in (tmp_path / "a.svg").read_bytes()[:500]
    assert (tmp_path / "noext").read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.png", "a.svg", "noext"]


def test_figure_size_is_used(tmp_path):
    from matplotlib.image import imread

    fig = _plot.new_figure((4, 2))
    _plot.save_figure(fig, str(tmp_path / "f.png"), dpi=50)
    h, w = imread(str(tmp_path / "f.png")).shape[:2]
    assert (w, h) == (200, 100)
