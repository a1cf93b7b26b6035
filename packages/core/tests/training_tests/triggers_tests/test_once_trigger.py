"""OnceTrigger: fire once, and once more after a resume if asked."""

from __future__ import annotations

import numpy as np
import pytest
from _training_helpers import fire_pattern

from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import triggers


def test_once_trigger():
    trig = triggers.OnceTrigger()
    assert fire_pattern(trig, 3) == [1]
    assert trig.finished
    resumed = triggers.OnceTrigger(call_on_resume=True)
    s = DictionarySerializer()
    trig.serialize(s)
    resumed.serialize(NpzDeserializer(s.target))
    assert fire_pattern(resumed, 3) == [1]


def test_resumed_without_call_on_resume_stays_silent():
    done = triggers.OnceTrigger()
    fire_pattern(done, 1)
    s = DictionarySerializer()
    done.serialize(s)
    resumed = triggers.OnceTrigger()
    assert not resumed.finished
    resumed.serialize(NpzDeserializer(s.target))
    assert resumed.finished
    assert fire_pattern(resumed, 3) == []


def test_call_on_resume_before_any_resume_fires_once():
    trig = triggers.OnceTrigger(call_on_resume=True)
    assert fire_pattern(trig, 3) == [1]
    assert trig.finished


def test_snapshot_without_the_flag_warns_and_counts_as_fired():
    # Snapshots of Chainer before v5 saved nothing for this trigger: loading
    # one must not fail, and the resumed run is past its first call.
    resumed = triggers.OnceTrigger()
    with pytest.warns(UserWarning, match="_flag_first"):
        resumed.serialize(NpzDeserializer({"unrelated": np.zeros(1)}))
    assert resumed.finished
    assert fire_pattern(resumed, 3) == []
    again = triggers.OnceTrigger(call_on_resume=True)
    with pytest.warns(UserWarning):
        again.serialize(NpzDeserializer({}))
    assert fire_pattern(again, 3) == [1]
