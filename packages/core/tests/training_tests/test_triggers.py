"""Triggers: interval, manual schedule, best value, early stopping, once, time."""

from __future__ import annotations

import pytest
from _training_helpers import mock_trainer

from kusari import training
from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import triggers


def fire_pattern(trigger, n, iters_per_epoch=10, observations=None):
    trainer = mock_trainer(stop=None, iters_per_epoch=iters_per_epoch)
    fired = []
    for i in range(1, n + 1):
        trainer.updater.update()
        trainer.observation = (observations or {}).get(i, {})
        if trigger(trainer):
            fired.append(i)
    return fired


def test_interval_trigger_iteration_and_epoch():
    assert fire_pattern(triggers.IntervalTrigger(3, "iteration"), 10) == [3, 6, 9]
    assert fire_pattern(triggers.IntervalTrigger(1, "epoch"), 25,
                        iters_per_epoch=10) == [10, 20]
    assert fire_pattern(triggers.IntervalTrigger(0.5, "epoch"), 20,
                        iters_per_epoch=4) == [2, 4, 6, 8, 10, 12, 14, 16, 18, 20]
    assert fire_pattern(training.get_trigger((2, "epoch")), 12,
                        iters_per_epoch=3) == [6, 12]
    with pytest.raises(ValueError, match="unit"):
        triggers.IntervalTrigger(1, "second")
    assert repr(triggers.IntervalTrigger(2, "epoch")) == "IntervalTrigger(2, 'epoch')"
    assert triggers.IntervalTrigger(2, "epoch").get_training_length() == (2, "epoch")


def test_get_trigger_passthrough_and_none():
    f = triggers.OnceTrigger()
    assert training.get_trigger(f) is f
    never = training.get_trigger(None)
    assert not never(mock_trainer())


def test_interval_trigger_serialize_resumes():
    trainer = mock_trainer(stop=None)
    trig = triggers.IntervalTrigger(4, "iteration")
    for _ in range(3):
        trainer.updater.update()
        trig(trainer)
    s = DictionarySerializer()
    trig.serialize(s)
    fresh = triggers.IntervalTrigger(4, "iteration")
    fresh.serialize(NpzDeserializer(s.target))
    trainer.updater.update()
    assert fresh(trainer)


def test_interval_trigger_missing_keys_warns_and_guesses():
    trig = triggers.IntervalTrigger(4, "iteration")
    with pytest.warns(UserWarning, match="not saved"):
        trig.serialize(NpzDeserializer({}))
    trainer = mock_trainer(stop=None)
    for _ in range(4):
        trainer.updater.update()
    assert trig(trainer)


def test_manual_schedule_trigger():
    trig = triggers.ManualScheduleTrigger([2, 5], "iteration")
    assert fire_pattern(trig, 8) == [2, 5]
    assert trig.finished
    trig = triggers.ManualScheduleTrigger(1.5, "epoch")
    assert fire_pattern(trig, 30, iters_per_epoch=10) == [15]


def test_min_max_value_triggers():
    values = {2: {"v": 3.0}, 4: {"v": 1.0}, 6: {"v": 5.0}, 8: {"v": 0.5}}
    assert fire_pattern(triggers.MaxValueTrigger("v", (2, "iteration")), 8,
                        observations=values) == [2, 6]
    assert fire_pattern(triggers.MinValueTrigger("v", (2, "iteration")), 8,
                        observations=values) == [2, 4, 8]
    best = triggers.BestValueTrigger("v", lambda b, n: n == b + 2, (2, "iteration"))
    assert fire_pattern(best, 6, observations=values) == [2, 6]


def test_min_value_trigger_averages_interval_and_serializes():
    values = {1: {"v": 4.0}, 2: {"v": 2.0}, 3: {"v": 2.0}, 4: {"v": 2.0}}
    trig = triggers.MinValueTrigger("v", (2, "iteration"))
    assert fire_pattern(trig, 4, observations=values) == [2, 4]  # 3.0, 2.0
    s = DictionarySerializer()
    trig.serialize(s)
    fresh = triggers.MinValueTrigger("v", (2, "iteration"))
    fresh.serialize(NpzDeserializer(s.target))
    assert fresh._best_value == 2.0


def test_early_stopping_trigger():
    obs = {i: {"main/loss": 1.0} for i in range(1, 200)}
    obs[1] = {"main/loss": 0.5}
    trig = triggers.EarlyStoppingTrigger(check_trigger=(1, "iteration"),
                                         patience=3, max_trigger=(100, "iteration"))
    assert fire_pattern(trig, 10, observations=obs)[0] == 4
    assert trig.get_training_length() == (100, "iteration")
    acc = triggers.EarlyStoppingTrigger(monitor="main/accuracy")
    assert acc.best == float("-inf")
    maxed = triggers.EarlyStoppingTrigger(check_trigger=(1, "iteration"),
                                          max_trigger=(3, "iteration"))
    assert fire_pattern(maxed, 3, observations=obs) == [3]


def test_early_stopping_deprecated_patients():
    with pytest.warns(DeprecationWarning):
        trig = triggers.EarlyStoppingTrigger(patients=5)
    assert trig.patience == 5


def test_once_trigger():
    trig = triggers.OnceTrigger()
    assert fire_pattern(trig, 3) == [1]
    assert trig.finished
    resumed = triggers.OnceTrigger(call_on_resume=True)
    s = DictionarySerializer()
    trig.serialize(s)
    resumed.serialize(NpzDeserializer(s.target))
    assert fire_pattern(resumed, 3) == [1]


def test_time_trigger():
    class FakeTrainer:
        elapsed_time = 0.0

    trig = triggers.TimeTrigger(1.0)
    t = FakeTrainer()
    fired = []
    for step in range(12):
        t.elapsed_time = step * 0.25
        if trig(t):
            fired.append(t.elapsed_time)
    assert fired == [1.25, 2.25]
    s = DictionarySerializer()
    trig.serialize(s)
    assert float(s.target["next_time"]) == 3.0
