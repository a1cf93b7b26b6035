"""VariableStatisticsPlot: percentile bands of parameters over time."""

from __future__ import annotations

import numpy as np
import pytest
from _training_helpers import build_real_trainer, mock_trainer

import kusari
from kusari.training import extensions


@pytest.mark.skipif(not extensions.PlotReport.available(), reason="no matplotlib")
def test_variable_statistics_plot(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(2, "epoch"))
    model = trainer.updater.get_optimizer("main").target
    trainer.extend(extensions.VariableStatisticsPlot(model), trigger=(1, "epoch"))
    trainer.run()
    out = tmp_path / "result"
    assert (out / "statistics.png").stat().st_size > 0
    with pytest.raises(TypeError):
        extensions.VariableStatisticsPlot(3)


needs_matplotlib = pytest.mark.skipif(
    not extensions.VariableStatisticsPlot.available(), reason="no matplotlib"
)


@needs_matplotlib
def test_redrawn_only_when_its_own_trigger_fires(tmp_path):
    v = kusari.Variable(np.arange(10, dtype=np.float32))
    ext = extensions.VariableStatisticsPlot(
        v, trigger=(3, "iteration"), report_grad=False, filename="s.png"
    )
    trainer = mock_trainer(stop=(2, "iteration"), out=str(tmp_path))
    trainer.extend(ext, trigger=(1, "iteration"))
    trainer.run()
    assert not (tmp_path / "s.png").exists()
    trainer = mock_trainer(stop=(3, "iteration"), out=str(tmp_path / "b"))
    trainer.extend(
        extensions.VariableStatisticsPlot(
            v, trigger=(3, "iteration"), report_grad=False, filename="s.png"
        ),
        trigger=(1, "iteration"),
    )
    trainer.run()
    assert (tmp_path / "b" / "s.png").read_bytes()[:4] == b"\x89PNG"


@needs_matplotlib
def test_variables_without_gradients_and_sampling(tmp_path):
    # No variable has a gradient: the grad panel is drawn from NaNs without
    # failing; 10000 elements are sampled down to 50.
    v = kusari.Variable(np.random.randn(10000).astype(np.float32))
    ext = extensions.VariableStatisticsPlot(
        [v], max_sample_size=50, trigger=(1, "iteration")
    )
    trainer = mock_trainer(stop=(2, "iteration"), out=str(tmp_path))
    trainer.extend(ext, trigger=(1, "iteration"))
    trainer.run()
    assert (tmp_path / "statistics.png").stat().st_size > 0


@needs_matplotlib
def test_argument_errors_name_the_extension():
    v = kusari.Variable(np.zeros(3, dtype=np.float32))
    with pytest.raises(ValueError, match="VariableStatisticsPlot"):
        extensions.VariableStatisticsPlot(v, report_data=False, report_grad=False)
    with pytest.raises(TypeError, match="VariableStatisticsPlot"):
        extensions.VariableStatisticsPlot(v, filname="x.png")
    with pytest.raises(TypeError, match="Variables or Links, got str"):
        extensions.VariableStatisticsPlot([v, "W"])


@needs_matplotlib
def test_deprecated_file_name(tmp_path):
    v = kusari.Variable(np.zeros(3, dtype=np.float32))
    trainer = mock_trainer(stop=(1, "iteration"), out=str(tmp_path))
    trainer.extend(
        extensions.VariableStatisticsPlot(
            v, trigger=(1, "iteration"), file_name="old.png"
        ),
        trigger=(1, "iteration"),
    )
    trainer.run()
    assert (tmp_path / "old.png").exists()


def test_module_tells_whether_matplotlib_is_available():
    # Chainer's plotting modules expose ``_available``; scripts read it.
    from kusari.training.extensions import plot_report, variable_statistics_plot

    assert variable_statistics_plot._available == extensions.PlotReport.available()
    assert plot_report._available == extensions.PlotReport.available()
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        variable_statistics_plot.nope  # noqa: B018


def test_reservoir_keeps_a_uniform_sample_in_tag_order():
    from kusari.training.extensions.variable_statistics_plot import Reservoir

    r = Reservoir(size=3, data_shape=(2,))
    for i in range(3):
        r.add(np.full(2, i))
    idxs, data = r.get_data()
    assert idxs.tolist() == [0, 1, 2]
    assert data[:, 0].tolist() == [0.0, 1.0, 2.0]
    np.random.seed(0)
    hits = np.zeros(30)
    for _ in range(400):
        r = Reservoir(size=3, data_shape=())
        for i in range(30):
            r.add(i, idx=i)
        idxs, data = r.get_data()
        assert len(idxs) == 3 and (np.diff(idxs) > 0).all()
        np.testing.assert_array_equal(idxs, data)
        hits[idxs] += 1
    # Each of 30 items is held with probability 3/30: 40 of 400 expected.
    assert hits.min() > 15 and hits.max() < 70
    with pytest.raises(ValueError, match="Reservoir: size must be positive"):
        Reservoir(0, data_shape=())


def test_statistician_over_axes_and_dtype():
    from kusari.training.extensions.variable_statistics_plot import Statistician

    x = np.random.RandomState(1).uniform(-1, 1, (4, 5, 6))
    stat = Statistician(True, True, (0.0, 50.0, 100.0))(x, axis=None)
    np.testing.assert_allclose(stat["mean"], x.mean())
    np.testing.assert_allclose(stat["std"], x.std())
    np.testing.assert_allclose(stat["percentile"], [x.min(), np.median(x), x.max()])
    per_col = Statistician(True, False, None)(x, axis=0, dtype=np.float32)
    assert set(per_col) == {"mean"}
    assert per_col["mean"].shape == (5, 6) and per_col["mean"].dtype == np.float32
    both = Statistician(False, True, (50.0,))(x, axis=(0, 2))
    assert both["percentile"].shape == (1, 5)
    np.testing.assert_allclose(both["std"], x.std(axis=(0, 2)))
