"""LinearShift: a linear ramp between two values over a call range."""

from __future__ import annotations

import pytest
from _training_helpers import lr_sequence

from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import extensions


def test_linear_shift():
    assert lr_sequence(extensions.LinearShift("lr", (1.0, 0.0), (1, 3)), 4) == [
        1.0,
        1.0,
        0.5,
        0.0,
        0.0,
    ]


def test_rising_ramp_and_start_value_set_at_initialize():
    ext = extensions.LinearShift("lr", (0.0, 0.4), (0, 4))
    assert lr_sequence(ext, 5, lr=9.0) == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4, 0.4])


def test_resume_continues_on_the_ramp():
    ext = extensions.LinearShift("lr", (1.0, 0.0), (0, 4))
    lr_sequence(ext, 2)
    s = DictionarySerializer()
    ext.serialize(s)
    resumed = extensions.LinearShift("lr", (1.0, 0.0), (0, 4))
    resumed.serialize(NpzDeserializer(s.target))
    assert lr_sequence(resumed, 2) == pytest.approx([0.5, 0.25, 0.0])
