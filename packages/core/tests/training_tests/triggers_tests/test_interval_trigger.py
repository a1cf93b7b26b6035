"""IntervalTrigger: firing every period of iterations or epochs, and resume."""

from __future__ import annotations

import pytest
from _training_helpers import fire_pattern, mock_trainer

from kusari import training
from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import triggers


def test_interval_trigger_iteration_and_epoch():
    assert fire_pattern(triggers.IntervalTrigger(3, "iteration"), 10) == [3, 6, 9]
    assert fire_pattern(
        triggers.IntervalTrigger(1, "epoch"), 25, iters_per_epoch=10
    ) == [10, 20]
    assert fire_pattern(
        triggers.IntervalTrigger(0.5, "epoch"), 20, iters_per_epoch=4
    ) == [2, 4, 6, 8, 10, 12, 14, 16, 18, 20]
    assert fire_pattern(training.get_trigger((2, "epoch")), 12, iters_per_epoch=3) == [
        6,
        12,
    ]
    with pytest.raises(ValueError, match="unit"):
        triggers.IntervalTrigger(1, "second")
    assert repr(triggers.IntervalTrigger(2, "epoch")) == "IntervalTrigger(2, 'epoch')"
    assert triggers.IntervalTrigger(2, "epoch").get_training_length() == (2, "epoch")


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


def test_epoch_trigger_loaded_without_position_guesses_from_the_updater():
    # A snapshot without the trigger's position: the previous position is
    # taken from the updater, so resuming mid-epoch does not fire at once.
    trig = triggers.IntervalTrigger(1, "epoch")
    with pytest.warns(UserWarning, match="not saved"):
        trig.serialize(NpzDeserializer({}))
    trainer = mock_trainer(stop=None, iters_per_epoch=10)
    for _ in range(15):
        trainer.updater.update()
    assert not trig(trainer)  # epoch 1.4 -> 1.5
    fired = []
    for _ in range(10):
        trainer.updater.update()
        if trig(trainer):
            fired.append(trainer.updater.iteration)
    assert fired == [20]


def test_count_follows_the_periods_passed():
    trainer = mock_trainer(stop=None)
    trig = triggers.IntervalTrigger(3, "iteration")
    for _ in range(7):
        trainer.updater.update()
        trig(trainer)
    assert trig.count == 2
