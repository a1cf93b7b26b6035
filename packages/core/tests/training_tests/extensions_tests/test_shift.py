"""The shared machinery of the shift extensions (``_shift``): the
target optimizer and attribute, resume, and clamping."""

from __future__ import annotations

import pytest
from _training_helpers import lr_sequence, mock_trainer

from kusari import optimizers
from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import extensions
from kusari.training.extensions import _shift


def test_shift_on_other_attribute_and_explicit_optimizer():
    trainer = mock_trainer(stop=(1, "iteration"))
    adam = optimizers.Adam(alpha=0.1).setup(trainer.updater.optimizer.target)
    ext = extensions.ExponentialShift("alpha", 0.1, optimizer=adam)
    ext.initialize(trainer)
    ext(trainer)
    assert adam.alpha == pytest.approx(0.01)


def test_shift_resume_reapplies_last_value():
    ext = extensions.ExponentialShift("lr", 0.5)
    lr_sequence(ext, 2)
    s = DictionarySerializer()
    ext.serialize(s)
    resumed = extensions.ExponentialShift("lr", 0.5)
    resumed.serialize(NpzDeserializer(s.target))
    values = lr_sequence(resumed, 1)
    assert values == [0.25, 0.125]


@pytest.mark.parametrize(
    ("value", "target", "growing", "expected"),
    [
        (0.5, None, False, 0.5),
        (0.5, 0.3, False, 0.5),
        (0.2, 0.3, False, 0.3),
        (2.0, 3.0, True, 2.0),
        (4.0, 3.0, True, 3.0),
        (-4.0, -3.0, True, -3.0),
        (-0.2, -0.3, False, -0.3),
        (0.0, 0.3, False, 0.3),
    ],
)
def test_clamp(value, target, growing, expected):
    assert _shift.clamp(value, target, growing) == expected


def test_initialize_without_init_reads_the_optimizer_once():
    ext = extensions.ExponentialShift("lr", 0.5)
    trainer = mock_trainer(stop=(1, "iteration"))
    opt = trainer.updater.optimizer = optimizers.MomentumSGD(lr=0.8).setup(
        trainer.updater.optimizer.target
    )
    ext.initialize(trainer)
    opt.lr = 100.0  # changed behind the extension's back
    ext(trainer)
    assert opt.lr == pytest.approx(0.4)


def test_the_main_optimizer_is_used_by_default():
    trainer = mock_trainer(stop=(1, "iteration"))
    ext = extensions.ExponentialShift("lr", 0.5, init=0.2)
    ext.initialize(trainer)
    ext(trainer)
    assert trainer.updater.get_optimizer("main").lr == pytest.approx(0.1)


def test_the_base_needs_a_compute_rule():
    trainer = mock_trainer(stop=(1, "iteration"))
    ext = _shift.ValueShift("lr", init=1.0)
    ext.initialize(trainer)
    with pytest.raises(NotImplementedError):
        ext(trainer)
