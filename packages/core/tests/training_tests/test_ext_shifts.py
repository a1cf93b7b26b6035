"""Hyperparameter shift extensions: value sequences and resume."""

from __future__ import annotations

import pytest
from _training_helpers import mock_trainer

from kusari import optimizers
from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import extensions


def lr_sequence(ext, n, lr=1.0, attr="lr"):
    trainer = mock_trainer(stop=(n, "iteration"))
    opt = trainer.updater.optimizer = optimizers.MomentumSGD(lr=lr).setup(
        trainer.updater.optimizer.target)
    ext.initialize(trainer)
    values = [getattr(opt, attr)]
    for _ in range(n):
        trainer.updater.update()
        ext(trainer)
        values.append(getattr(opt, attr))
    return values


def test_exponential_shift_with_target():
    assert lr_sequence(extensions.ExponentialShift("lr", 0.5), 3) == [
        1.0, 0.5, 0.25, 0.125]
    assert lr_sequence(extensions.ExponentialShift("lr", 0.5, target=0.3), 3) == [
        1.0, 0.5, 0.3, 0.3]
    assert lr_sequence(extensions.ExponentialShift("lr", 2, init=0.1, target=0.3),
                       3) == [0.1, 0.2, 0.3, 0.3]
    with pytest.raises(ValueError):
        extensions.ExponentialShift("lr", -1)


def test_step_and_multistep_shift():
    assert lr_sequence(extensions.StepShift("lr", 0.1, 2), 4) == pytest.approx(
        [1.0, 1.0, 0.1, 0.1, 0.01])
    assert lr_sequence(extensions.MultistepShift("lr", 0.5, [1, 3], 2.0), 4) == [
        2.0, 1.0, 1.0, 0.5, 0.5]


def test_linear_warmup_inverse_polynomial():
    assert lr_sequence(extensions.LinearShift("lr", (1.0, 0.0), (1, 3)), 4) == [
        1.0, 1.0, 0.5, 0.0, 0.0]
    assert lr_sequence(extensions.WarmupShift("lr", 0.0, 2, init=1.0), 4,
                       lr=9.0) == [0.0, 0.5, 1.0, 1.0, 1.0]
    inv = lr_sequence(extensions.InverseShift("lr", 1.0, 1.0), 3)
    assert inv == pytest.approx([1.0, 1 / 2, 1 / 3, 1 / 4])
    poly = lr_sequence(extensions.PolynomialShift("lr", 2, 4), 5)
    assert poly == pytest.approx([1.0, 0.5625, 0.25, 0.0625, 0.0, 0.0])


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


def test_multistep_resume_keeps_step():
    ext = extensions.MultistepShift("lr", 0.5, [1, 3], 2.0)
    lr_sequence(ext, 3)
    s = DictionarySerializer()
    ext.serialize(s)
    resumed = extensions.MultistepShift("lr", 0.5, [1, 3], 2.0)
    resumed.serialize(NpzDeserializer(s.target))
    assert lr_sequence(resumed, 1) == [0.5, 0.5]
