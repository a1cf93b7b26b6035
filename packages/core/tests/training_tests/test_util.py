"""kusari.training.util.get_trigger (and its compat home, training.trigger)."""

from __future__ import annotations

import pytest
from _training_helpers import mock_trainer

from kusari import training
from kusari.training import trigger as trigger_compat
from kusari.training import triggers, util


def test_get_trigger_passthrough_and_none():
    f = triggers.OnceTrigger()
    assert training.get_trigger(f) is f
    never = training.get_trigger(None)
    assert not never(mock_trainer())


def test_tuple_gives_an_interval_trigger():
    trig = util.get_trigger((3, "iteration"))
    assert isinstance(trig, triggers.IntervalTrigger)
    assert trig.get_training_length() == (3, "iteration")
    with pytest.raises(ValueError, match="unit"):
        util.get_trigger((3, "minutes"))


def test_a_plain_function_is_used_as_is():
    def every_other(trainer):
        return trainer.updater.iteration % 2 == 0

    assert util.get_trigger(every_other) is every_other


def test_the_none_trigger_never_fires():
    never = util.get_trigger(None)
    trainer = mock_trainer(stop=None)
    for _ in range(25):
        trainer.updater.update()
        assert not never(trainer)


def test_trigger_compat_module_reexports():
    assert trigger_compat.get_trigger is util.get_trigger
    assert trigger_compat.IntervalTrigger is triggers.IntervalTrigger
