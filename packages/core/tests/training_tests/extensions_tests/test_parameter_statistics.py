"""ParameterStatistics: statistics of parameters and gradients."""

from __future__ import annotations

import numpy as np
import pytest
from _training_helpers import TinyMLP, build_real_trainer, mock_trainer

from kusari import reporter
from kusari.training import extensions


def test_parameter_statistics(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(2, "iteration"))
    model = trainer.updater.get_optimizer("main").target
    stats = extensions.ParameterStatistics(model, trigger=(1, "iteration"), prefix="p")
    stats.register_statistics("norm", lambda x: np.linalg.norm(x))
    trainer.extend(stats)
    seen = []
    trainer.extend(lambda tr: seen.append(dict(tr.observation)), name="spy", priority=0)
    trainer.run()
    obs = seen[-1]
    key = f"p/{getattr(model, 'name', 'None')}/W1/data"
    assert float(obs[key + "/mean"]) == pytest.approx(float(model.W1.array.mean()))
    assert float(obs[key + "/norm"]) == pytest.approx(
        float(np.linalg.norm(model.W1.array)), rel=1e-5
    )
    assert key + "/percentile/6" in obs
    assert any(k.endswith("/grad/max") for k in obs)


def _report(ext, n=1, trainer=None):
    """The observation of each of ``n`` calls on a (mock) trainer."""
    trainer = trainer or mock_trainer(stop=None)
    seen = []
    for _ in range(n):
        trainer.updater.update()
        obs = {}
        with reporter.Reporter().scope(obs):
            ext(trainer)
        seen.append(obs)
    return seen


def test_default_statistics_of_data_and_grad():
    model = TinyMLP()
    model.cleargrads()
    model.b2.grad = np.array([1.0, 3.0], dtype=np.float32)
    (obs,) = _report(extensions.ParameterStatistics(model, trigger=(1, "iteration")))
    key = "None/b2"
    assert float(obs[key + "/data/zeros"]) == 2
    assert float(obs[key + "/grad/mean"]) == 2.0
    assert float(obs[key + "/grad/std"]) == 1.0
    assert float(obs[key + "/grad/min"]) == 1.0 and float(obs[key + "/grad/max"]) == 3
    assert [f"{key}/grad/percentile/{i}" in obs for i in range(7)] == [True] * 7
    assert key + "/grad/percentile/7" not in obs
    # Parameters without a gradient report their data only.
    assert "None/W1/data/mean" in obs and "None/W1/grad/mean" not in obs


def test_statistics_none_and_report_switches():
    model = TinyMLP()
    ext = extensions.ParameterStatistics(
        model, statistics=None, report_grads=False, trigger=(1, "iteration")
    )
    trainer = mock_trainer(stop=None)
    assert _report(ext, trainer=trainer) == [{}]
    ext.register_statistics("sum", lambda x: x.sum())
    (obs,) = _report(ext, trainer=trainer)
    assert set(obs) == {f"None/{n}/data/sum" for n in ("W1", "b1", "W2", "b2")}


def test_values_are_averaged_over_the_trigger_interval():
    model = TinyMLP()
    ext = extensions.ParameterStatistics(
        model, statistics={"m": np.mean}, report_grads=False, trigger=(2, "iteration")
    )
    trainer = mock_trainer(stop=None)
    seen = []
    for value in (1.0, 3.0):
        model.b1.array[...] = value
        trainer.updater.update()
        obs = {}
        with reporter.Reporter().scope(obs):
            ext(trainer)
        seen.append(obs.get("None/b1/data/m"))
    assert seen[0] is None and float(seen[1]) == 2.0


def test_several_links_and_skip_nan_params():
    a, b = TinyMLP(1), TinyMLP(2)
    b.b1.array[0] = np.nan
    ext = extensions.ParameterStatistics(
        [a, b],
        statistics={"max": np.max},
        report_grads=False,
        prefix="s",
        trigger=(1, "iteration"),
        skip_nan_params=True,
    )
    (obs,) = _report(ext)
    # Both links are unnamed, so they share keys: the second one's values
    # overwrite the first's.
    assert np.isnan(float(obs["s/None/b1/data/max"]))
    assert float(obs["s/None/W1/data/max"]) == pytest.approx(float(b.W1.array.max()))


def test_default_statistics_is_a_public_class_attribute():
    default = extensions.ParameterStatistics.default_statistics
    assert sorted(default) == ["max", "mean", "min", "percentile", "std", "zeros"]
    # Passing it explicitly is the same as the 'default' string.
    layer = TinyMLP()
    trainer = mock_trainer(stop=(1, "iteration"))
    ext = extensions.ParameterStatistics(
        layer, statistics=default, report_grads=False, trigger=(1, "iteration")
    )
    observation = {}
    trainer.updater.update()
    with reporter.Reporter().scope(observation):
        ext(trainer)
    assert any(k.endswith("/W1/data/mean") for k in observation)
    assert any(k.endswith("/W1/data/zeros") for k in observation)
