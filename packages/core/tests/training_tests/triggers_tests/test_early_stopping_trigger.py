"""EarlyStoppingTrigger: patience, modes, the max trigger, and resume."""

from __future__ import annotations

import pytest
from _training_helpers import fire_pattern, mock_trainer

from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import triggers


def test_early_stopping_trigger():
    obs = {i: {"main/loss": 1.0} for i in range(1, 200)}
    obs[1] = {"main/loss": 0.5}
    trig = triggers.EarlyStoppingTrigger(
        check_trigger=(1, "iteration"), patience=3, max_trigger=(100, "iteration")
    )
    assert fire_pattern(trig, 10, observations=obs)[0] == 4
    assert trig.get_training_length() == (100, "iteration")
    acc = triggers.EarlyStoppingTrigger(monitor="main/accuracy")
    assert acc.best == float("-inf")
    maxed = triggers.EarlyStoppingTrigger(
        check_trigger=(1, "iteration"), max_trigger=(3, "iteration")
    )
    assert fire_pattern(maxed, 3, observations=obs) == [3]


def test_early_stopping_deprecated_patients():
    with pytest.warns(DeprecationWarning):
        trig = triggers.EarlyStoppingTrigger(patients=5)
    assert trig.patience == 5


def _every_iteration(**kwargs):
    return triggers.EarlyStoppingTrigger(
        check_trigger=(1, "iteration"), max_trigger=(100, "iteration"), **kwargs
    )


@pytest.mark.parametrize(("mode", "first_stop"), [("max", 4), ("min", 3)])
def test_explicit_mode_decides_what_improves(mode, first_stop):
    # 1, 2, 2, 2: rising is an improvement in 'max' mode only.
    obs = {i: {"v": v} for i, v in enumerate([1.0, 2.0, 2.0, 2.0], start=1)}
    trig = _every_iteration(monitor="v", patience=2, mode=mode)
    assert fire_pattern(trig, 4, observations=obs)[0] == first_stop


def test_bad_arguments_are_rejected():
    with pytest.raises(ValueError, match="mode"):
        triggers.EarlyStoppingTrigger(mode="best")
    with pytest.raises(TypeError, match="EarlyStoppingTrigger"):
        triggers.EarlyStoppingTrigger(patiance=2)


def test_missing_monitor_warns_and_does_not_stop():
    trig = _every_iteration(monitor="v", patience=1)
    with pytest.warns(UserWarning, match="not in the observation"):
        assert fire_pattern(trig, 3, observations={}) == []


def test_values_between_checks_are_averaged():
    # Checked every 2 iterations: means 2.0, 2.0 (no improvement), 1.0.
    values = [3.0, 1.0, 1.0, 3.0, 0.0, 2.0]
    obs = {i: {"v": v} for i, v in enumerate(values, start=1)}
    trig = triggers.EarlyStoppingTrigger(
        check_trigger=(2, "iteration"),
        monitor="v",
        patience=2,
        max_trigger=(100, "iteration"),
    )
    assert fire_pattern(trig, 6, observations=obs) == []
    assert trig.best == 1.0 and trig.count == 0


def test_verbose_prints_when_stopping(capsys):
    trig = _every_iteration(monitor="v", patience=1, verbose=True)
    obs = {1: {"v": 1.0}, 2: {"v": 1.0}}
    assert fire_pattern(trig, 2, observations=obs) == [2]
    assert "early stopping" in capsys.readouterr().out


def test_resume_keeps_best_and_count():
    obs = {1: {"v": 0.5}, 2: {"v": 1.0}, 3: {"v": 1.0}}
    trig = _every_iteration(monitor="v", patience=3)
    assert fire_pattern(trig, 3, observations=obs) == []
    assert (trig.best, trig.count) == (0.5, 2)
    s = DictionarySerializer()
    trig.serialize(s)
    fresh = _every_iteration(monitor="v", patience=3)
    fresh.serialize(NpzDeserializer(s.target))
    assert (fresh.best, fresh.count) == (0.5, 2)
    trainer = mock_trainer(stop=None)
    trainer.updater.iteration = 3
    trainer.updater.update()
    trainer.observation = {"v": 1.0}
    assert fresh(trainer)  # the third check without improvement


def test_patience_and_its_alias_together_are_an_error():
    # Both by keyword and with patience given positionally.
    with pytest.raises(TypeError, match="patience.*patients"):
        triggers.EarlyStoppingTrigger(patience=10, patients=3)
    with pytest.raises(TypeError, match="EarlyStoppingTrigger"):
        triggers.EarlyStoppingTrigger((1, "epoch"), "main/loss", 10, patients=3)
    assert triggers.EarlyStoppingTrigger((1, "epoch"), "main/loss", 10).patience == 10
    assert triggers.EarlyStoppingTrigger().patience == 3
