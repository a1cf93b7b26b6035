"""MultistepShift: ``init * gamma ** k`` after ``k`` listed steps."""

from __future__ import annotations

from _training_helpers import lr_sequence

from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import extensions


def test_multistep_shift():
    assert lr_sequence(extensions.MultistepShift("lr", 0.5, [1, 3], 2.0), 4) == [
        2.0,
        1.0,
        1.0,
        0.5,
        0.5,
    ]


def test_multistep_resume_keeps_step():
    ext = extensions.MultistepShift("lr", 0.5, [1, 3], 2.0)
    lr_sequence(ext, 3)
    s = DictionarySerializer()
    ext.serialize(s)
    resumed = extensions.MultistepShift("lr", 0.5, [1, 3], 2.0)
    resumed.serialize(NpzDeserializer(s.target))
    assert lr_sequence(resumed, 1) == [0.5, 0.5]


def test_init_none_starts_from_the_optimizer_value():
    ext = extensions.MultistepShift("lr", 0.1, [2], None)
    assert lr_sequence(ext, 3, lr=3.0) == [3.0, 3.0, 3.0 * 0.1, 3.0 * 0.1]


def test_no_more_steps_after_the_last_listed_one():
    ext = extensions.MultistepShift("lr", 0.5, [2, 4], 1.0)
    assert lr_sequence(ext, 8) == [1.0, 1.0, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25, 0.25]


def test_serialized_state_holds_the_current_step():
    ext = extensions.MultistepShift("lr", 0.5, [1, 3], 2.0)
    lr_sequence(ext, 3)
    s = DictionarySerializer()
    ext.serialize(s)
    assert int(s.target["_current_step"]) == 2 and int(s.target["_t"]) == 3
