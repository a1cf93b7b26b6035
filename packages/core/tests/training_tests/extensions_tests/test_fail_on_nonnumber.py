"""FailOnNonNumber: stop when parameters or gradients stop being finite."""

from __future__ import annotations

import numpy as np
import pytest
from _training_helpers import TinyMLP, build_real_trainer, mock_trainer

from kusari import optimizers
from kusari.training import extensions


def test_fail_on_nonnumber(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(3, "iteration"))
    model = trainer.updater.get_optimizer("main").target

    def poison(tr):
        model.W1.array[0, 0] = np.nan

    trainer.extend(poison, name="poison", priority=300)
    trainer.extend(extensions.FailOnNonNumber())
    with pytest.raises(RuntimeError, match="diverge"):
        trainer.run(show_loop_exception_msg=False)


def _trainer_with(model):
    trainer = mock_trainer(stop=None)
    trainer.updater.optimizer = optimizers.SGD().setup(model)
    return trainer


def test_finite_values_pass():
    model = TinyMLP()
    for p in model.params():
        p.grad = np.ones_like(p.array)
    extensions.FailOnNonNumber()(_trainer_with(model))


def test_infinite_gradient_fails_unless_gradients_are_not_checked():
    model = TinyMLP()
    model.W2.grad = np.zeros_like(model.W2.array)
    model.W2.grad[1, 1] = np.inf
    trainer = _trainer_with(model)
    with pytest.raises(RuntimeError, match="gradients in optimizer 'main'"):
        extensions.FailOnNonNumber()(trainer)
    extensions.FailOnNonNumber(check_grad=False)(trainer)


def test_infinite_parameter_is_named_as_a_parameter():
    model = TinyMLP()
    model.b1.array[2] = -np.inf
    with pytest.raises(RuntimeError, match="parameters in optimizer 'main'"):
        extensions.FailOnNonNumber(check_grad=False)(_trainer_with(model))
