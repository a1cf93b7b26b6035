"""ExponentialShift: ``init * rate ** t``, clamped at ``target``."""

from __future__ import annotations

import pytest
from _training_helpers import lr_sequence, mock_trainer

from kusari import optimizers
from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import extensions


def test_exponential_shift_with_target():
    assert lr_sequence(extensions.ExponentialShift("lr", 0.5), 3) == [
        1.0,
        0.5,
        0.25,
        0.125,
    ]
    assert lr_sequence(extensions.ExponentialShift("lr", 0.5, target=0.3), 3) == [
        1.0,
        0.5,
        0.3,
        0.3,
    ]
    assert lr_sequence(
        extensions.ExponentialShift("lr", 2, init=0.1, target=0.3), 3
    ) == [0.1, 0.2, 0.3, 0.3]
    with pytest.raises(ValueError):
        extensions.ExponentialShift("lr", -1)


def test_init_overrides_the_optimizer_value_at_start():
    assert lr_sequence(extensions.ExponentialShift("lr", 0.5, init=4.0), 2, lr=9.0) == [
        4.0,
        2.0,
        1.0,
    ]


def test_negative_values_clamp_toward_the_target_too():
    # -1, -2, -4 grows in magnitude; the target -3 stops it.
    ext = extensions.ExponentialShift("lr", 2.0, init=-1.0, target=-3.0)
    assert lr_sequence(ext, 3) == [-1.0, -2.0, -3.0, -3.0]


def test_error_names_the_rate():
    with pytest.raises(ValueError, match="ExponentialShift.*rate"):
        extensions.ExponentialShift("lr", -0.5)


def test_shifts_another_optimizer_attribute():
    trainer = mock_trainer(stop=(2, "iteration"))
    adam = optimizers.Adam(alpha=0.2).setup(trainer.updater.optimizer.target)
    trainer.updater.optimizer = adam
    ext = extensions.ExponentialShift("alpha", 0.5)
    ext.initialize(trainer)
    ext(trainer)
    ext(trainer)
    assert adam.alpha == pytest.approx(0.05)


def test_serialized_state_holds_t_and_the_last_value():
    ext = extensions.ExponentialShift("lr", 0.5)
    lr_sequence(ext, 3)
    s = DictionarySerializer()
    ext.serialize(s)
    assert int(s.target["_t"]) == 3
    assert float(s.target["_last_value"]) == 0.125
    resumed = extensions.ExponentialShift("lr", 0.5)
    resumed.serialize(NpzDeserializer(s.target))
    assert lr_sequence(resumed, 1) == [0.125, 0.0625]
