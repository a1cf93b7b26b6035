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
