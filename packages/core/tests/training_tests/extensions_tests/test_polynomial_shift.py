"""PolynomialShift: ``init * (1 - t / max_count) ** rate``."""

from __future__ import annotations

import pytest
from _training_helpers import lr_sequence

from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import extensions


def test_polynomial_shift():
    poly = lr_sequence(extensions.PolynomialShift("lr", 2, 4), 5)
    assert poly == pytest.approx([1.0, 0.5625, 0.25, 0.0625, 0.0, 0.0])


def test_linear_decay_to_a_target():
    ext = extensions.PolynomialShift("lr", 1, 4, target=0.4)
    # 0.75, 0.5, then 0.25 and 0.0 stop at 0.4 (no division by a zero value).
    assert lr_sequence(ext, 5, lr=1.0) == pytest.approx([1.0, 0.75, 0.5, 0.4, 0.4, 0.4])


def test_starts_from_the_optimizer_value():
    ext = extensions.PolynomialShift("lr", 1, 2)
    assert lr_sequence(ext, 2, lr=0.8) == pytest.approx([0.8, 0.4, 0.0])


def test_resume_keeps_the_initial_value_and_t():
    ext = extensions.PolynomialShift("lr", 1, 4)
    lr_sequence(ext, 2, lr=2.0)
    s = DictionarySerializer()
    ext.serialize(s)
    resumed = extensions.PolynomialShift("lr", 1, 4)
    resumed.serialize(NpzDeserializer(s.target))
    # The resumed run builds its optimizer as the first did (lr 2.0): the
    # last value, 1.0, is re-applied and the decay goes on from 2.0 at t = 3.
    assert lr_sequence(resumed, 2, lr=2.0) == pytest.approx([1.0, 0.5, 0.0])


def test_init_argument_sets_the_start_value():
    # Chainer's order: (attr, rate, max_count, init, target, optimizer).
    ext = extensions.PolynomialShift("lr", 1, 4, 2.0)
    assert lr_sequence(ext, 2, lr=0.3) == pytest.approx([2.0, 1.5, 1.0])
    ext = extensions.PolynomialShift("lr", 1, 4, 2.0, 1.2)
    assert lr_sequence(ext, 3, lr=0.3) == pytest.approx([2.0, 1.5, 1.2, 1.2])
