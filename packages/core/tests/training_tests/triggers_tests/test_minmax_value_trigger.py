"""BestValueTrigger, MaxValueTrigger and MinValueTrigger."""

from __future__ import annotations

from _training_helpers import fire_pattern, mock_trainer

from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import triggers


def test_min_max_value_triggers():
    values = {2: {"v": 3.0}, 4: {"v": 1.0}, 6: {"v": 5.0}, 8: {"v": 0.5}}
    assert fire_pattern(
        triggers.MaxValueTrigger("v", (2, "iteration")), 8, observations=values
    ) == [2, 6]
    assert fire_pattern(
        triggers.MinValueTrigger("v", (2, "iteration")), 8, observations=values
    ) == [2, 4, 8]
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


def test_interval_without_the_key_is_skipped_and_the_next_one_compares():
    # Interval 1 averages 4.0; interval 2 reports nothing (no decision);
    # interval 3 averages 1.0 and 9.0 = 5.0, a new maximum.
    values = {1: {"v": 4.0}, 5: {"v": 1.0}, 6: {"v": 9.0}}
    trig = triggers.MaxValueTrigger("v", (2, "iteration"))
    assert fire_pattern(trig, 6, observations=values) == [2, 6]


def test_resumed_trigger_compares_with_the_saved_best():
    values = {1: {"v": 3.0}, 2: {"v": 5.0}}
    trig = triggers.MaxValueTrigger("v", (1, "iteration"))
    assert fire_pattern(trig, 2, observations=values) == [1, 2]
    s = DictionarySerializer()
    trig.serialize(s)
    fresh = triggers.MaxValueTrigger("v", (1, "iteration"))
    fresh.serialize(NpzDeserializer(s.target))
    trainer = mock_trainer(stop=None)
    trainer.updater.iteration = 2
    fired = []
    for v in (4.0, 6.0):
        trainer.updater.update()
        trainer.observation = {"v": v}
        if fresh(trainer):
            fired.append(trainer.updater.iteration)
    assert fired == [4]  # 4.0 is below the saved best 5.0
