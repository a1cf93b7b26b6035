"""InverseShift: ``init * (1 + gamma * t) ** -power``."""

from __future__ import annotations

import pytest
from _training_helpers import lr_sequence

from kusari.training import extensions


def test_inverse_shift():
    inv = lr_sequence(extensions.InverseShift("lr", 1.0, 1.0), 3)
    assert inv == pytest.approx([1.0, 1 / 2, 1 / 3, 1 / 4])


def test_power_and_target():
    ext = extensions.InverseShift("lr", 1.0, 2.0, init=4.0, target=0.3)
    # 4 / 4 = 1, 4 / 9 = 0.444, 4 / 16 = 0.25 -> stopped at 0.3.
    assert lr_sequence(ext, 3) == pytest.approx([4.0, 1.0, 4 / 9, 0.3])


def test_negative_gamma_is_rejected():
    with pytest.raises(ValueError, match="InverseShift.*gamma"):
        extensions.InverseShift("lr", -1.0, 1.0)
