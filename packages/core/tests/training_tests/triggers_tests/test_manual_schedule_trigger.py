"""ManualScheduleTrigger: firing at listed points, finishing, and resume."""

from __future__ import annotations

import pytest
from _training_helpers import fire_pattern, mock_trainer

from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import triggers


def test_manual_schedule_trigger():
    trig = triggers.ManualScheduleTrigger([2, 5], "iteration")
    assert fire_pattern(trig, 8) == [2, 5]
    assert trig.finished
    trig = triggers.ManualScheduleTrigger(1.5, "epoch")
    assert fire_pattern(trig, 30, iters_per_epoch=10) == [15]


def test_fractional_epoch_points_fire_at_the_first_iteration_past_them():
    trig = triggers.ManualScheduleTrigger([0.5, 1.2], "epoch")
    # 4 iterations per epoch: 0.5 is reached at iteration 2, 1.2 is passed
    # at iteration 5 (epoch 1.25).
    assert fire_pattern(trig, 12, iters_per_epoch=4) == [2, 5]


def test_not_finished_until_the_last_point():
    trig = triggers.ManualScheduleTrigger([2, 5], "iteration")
    assert fire_pattern(trig, 4) == [2]
    assert not trig.finished


def test_unit_is_checked():
    with pytest.raises(ValueError, match="unit"):
        triggers.ManualScheduleTrigger([1], "seconds")


def test_resume_keeps_position_and_fires_only_later_points():
    trainer = mock_trainer(stop=None)
    trig = triggers.ManualScheduleTrigger([2, 5], "iteration")
    for _ in range(3):
        trainer.updater.update()
        trig(trainer)
    s = DictionarySerializer()
    trig.serialize(s)
    fresh = triggers.ManualScheduleTrigger([2, 5], "iteration")
    fresh.serialize(NpzDeserializer(s.target))
    fired = []
    for _ in range(5):
        trainer.updater.update()
        if fresh(trainer):
            fired.append(trainer.updater.iteration)
    assert fired == [5]
    assert fresh.finished
    s = DictionarySerializer()
    fresh.serialize(s)
    done = triggers.ManualScheduleTrigger([2, 5], "iteration")
    done.serialize(NpzDeserializer(s.target))
    assert done.finished


def _old_snapshot(trig, trainer):
    """What a trigger saved before ``finished`` was serialized."""
    s = DictionarySerializer()
    trig.serialize(s)
    del s.target["finished"]
    return s.target


def test_snapshot_without_finished_warns_and_works_it_out_at_the_next_call():
    trainer = mock_trainer(stop=None)
    trig = triggers.ManualScheduleTrigger([2, 5], "iteration")
    for _ in range(6):
        trainer.updater.update()
        trig(trainer)
    resumed = triggers.ManualScheduleTrigger([2, 5], "iteration")
    with pytest.warns(UserWarning, match="finished"):
        resumed.serialize(NpzDeserializer(_old_snapshot(trig, trainer)))
    assert not resumed.finished
    trainer.updater.update()
    # Past the last point: finished although nothing fires any more.
    assert not resumed(trainer)
    assert resumed.finished


def test_snapshot_without_finished_before_the_last_point_stays_unfinished():
    trainer = mock_trainer(stop=None)
    trig = triggers.ManualScheduleTrigger([2, 5], "iteration")
    for _ in range(3):
        trainer.updater.update()
        trig(trainer)
    resumed = triggers.ManualScheduleTrigger([2, 5], "iteration")
    with pytest.warns(UserWarning):
        resumed.serialize(NpzDeserializer(_old_snapshot(trig, trainer)))
    trainer.updater.update()
    assert not resumed(trainer) and not resumed.finished
    trainer.updater.update()
    assert resumed(trainer) and resumed.finished
