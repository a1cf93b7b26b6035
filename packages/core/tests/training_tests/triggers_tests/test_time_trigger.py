"""TimeTrigger: fire every period of training time, and resume."""

from __future__ import annotations

from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import triggers


class _Trainer:
    elapsed_time = 0.0


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


def test_resumed_trigger_waits_for_the_saved_next_time():
    s = DictionarySerializer()
    s("next_time", 3.0)
    trig = triggers.TimeTrigger(1.0)
    trig.serialize(NpzDeserializer(s.target))
    t = _Trainer()
    t.elapsed_time = 2.5  # a fresh trigger would fire here
    assert not trig(t)
    t.elapsed_time = 3.25
    assert trig(t)


def test_one_firing_per_call_after_a_long_gap():
    # A call after several periods fires once and moves one period on.
    trig = triggers.TimeTrigger(1.0)
    t = _Trainer()
    t.elapsed_time = 3.5
    assert trig(t) and trig(t) and trig(t)
    assert not trig(t)
