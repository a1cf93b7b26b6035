"""WarmupShift: a linear warm-up to ``init``, then hands off."""

from __future__ import annotations

import pytest
from _training_helpers import lr_sequence, mock_trainer

from kusari import optimizers
from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import extensions


def test_warmup_shift():
    assert lr_sequence(extensions.WarmupShift("lr", 0.0, 2, init=1.0), 4, lr=9.0) == [
        0.0,
        0.5,
        1.0,
        1.0,
        1.0,
    ]


def test_init_defaults_to_the_optimizer_value():
    assert lr_sequence(extensions.WarmupShift("lr", 0.2, 4), 5, lr=1.0) == (
        pytest.approx([0.2, 0.4, 0.6, 0.8, 1.0, 1.0])
    )


def test_after_warmup_another_shift_owns_the_value():
    trainer = mock_trainer(stop=(6, "iteration"))
    opt = trainer.updater.optimizer = optimizers.MomentumSGD(lr=1.0).setup(
        trainer.updater.optimizer.target
    )
    warmup = extensions.WarmupShift("lr", 0.0, 2)
    warmup.initialize(trainer)
    values = []
    for _ in range(4):
        trainer.updater.update()
        warmup(trainer)
        if trainer.updater.iteration > 2:
            opt.lr *= 0.5  # a later schedule; the warm-up must not undo it
        values.append(opt.lr)
    assert values == [0.5, 1.0, 0.5, 0.25]


def test_resume_mid_warmup_reapplies_and_continues():
    ext = extensions.WarmupShift("lr", 0.0, 4, init=1.0)
    lr_sequence(ext, 1)
    s = DictionarySerializer()
    ext.serialize(s)
    resumed = extensions.WarmupShift("lr", 0.0, 4, init=1.0)
    resumed.serialize(NpzDeserializer(s.target))
    assert lr_sequence(resumed, 3, lr=9.0) == [0.25, 0.5, 0.75, 1.0]
