"""StepShift: ``init * gamma ** floor(t / step)``, clamped at ``target``."""

from __future__ import annotations

import pytest
from _training_helpers import lr_sequence

from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import extensions


def test_step_shift():
    assert lr_sequence(extensions.StepShift("lr", 0.1, 2), 4) == pytest.approx(
        [1.0, 1.0, 0.1, 0.1, 0.01]
    )


def test_target_stops_the_decay():
    ext = extensions.StepShift("lr", 0.5, 1, target=0.3)
    assert lr_sequence(ext, 3) == [1.0, 0.5, 0.3, 0.3]


def test_growing_steps_stop_at_the_target():
    ext = extensions.StepShift("lr", 3.0, 2, init=1.0, target=5.0)
    assert lr_sequence(ext, 5, lr=0.1) == [1.0, 1.0, 3.0, 3.0, 5.0, 5.0]


def test_resume_continues_the_step_count():
    ext = extensions.StepShift("lr", 0.1, 3)
    lr_sequence(ext, 2)
    s = DictionarySerializer()
    ext.serialize(s)
    resumed = extensions.StepShift("lr", 0.1, 3)
    resumed.serialize(NpzDeserializer(s.target))
    # The third call overall is the first step (t = 3).
    assert lr_sequence(resumed, 1) == pytest.approx([1.0, 0.1])
