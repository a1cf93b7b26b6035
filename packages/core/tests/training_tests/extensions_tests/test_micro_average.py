"""MicroAverage: sum(numerator) / sum(denominator) over an interval."""

from __future__ import annotations

from _training_helpers import mock_trainer

from kusari import reporter
from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import extensions


def test_micro_average(tmp_path):
    trainer = mock_trainer(stop=(4, "iteration"), out=str(tmp_path))
    got = []

    def report(tr):
        i = tr.updater.iteration
        reporter.report({"correct": i, "total": 10})

    trainer.extend(report, name="report", priority=300)
    trainer.extend(
        extensions.MicroAverage("correct", "total", "acc", trigger=(2, "iteration"))
    )
    trainer.extend(
        lambda tr: got.append(tr.observation.get("acc")), name="spy", priority=0
    )
    trainer.run()
    assert got == [None, 0.15, None, 0.35]


def _drive(ext, trainer, observations):
    got = []
    for obs in observations:
        trainer.updater.update()
        trainer.observation = {}
        with reporter.Reporter().scope(trainer.observation):
            trainer.observation.update(obs)
            ext(trainer)
        got.append(trainer.observation.get("acc"))
    return got


def test_it_is_not_the_mean_of_the_ratios():
    # Batches of 10 (9 right) and 30 (3 right): 12 / 40, not mean(0.9, 0.1).
    ext = extensions.MicroAverage("c", "n", "acc", trigger=(2, "iteration"))
    got = _drive(ext, mock_trainer(stop=None), [{"c": 9, "n": 10}, {"c": 3, "n": 30}])
    assert got == [None, 0.3]


def test_iterations_without_both_keys_are_skipped():
    ext = extensions.MicroAverage("c", "n", "acc", trigger=(3, "iteration"))
    got = _drive(
        ext, mock_trainer(stop=None), [{"c": 1, "n": 2}, {"c": 5}, {"c": 1, "n": 2}]
    )
    assert got == [None, None, 0.5]


def test_resume_keeps_the_sums():
    trainer = mock_trainer(stop=None)
    ext = extensions.MicroAverage("c", "n", "acc", trigger=(2, "iteration"))
    _drive(ext, trainer, [{"c": 1, "n": 4}])
    s = DictionarySerializer()
    ext.serialize(s)
    resumed = extensions.MicroAverage("c", "n", "acc", trigger=(2, "iteration"))
    resumed.serialize(NpzDeserializer(s.target))
    assert _drive(resumed, trainer, [{"c": 3, "n": 4}]) == [0.5]


def test_priority_lets_readers_see_the_result():
    assert extensions.MicroAverage.priority > extensions.LogReport.priority
