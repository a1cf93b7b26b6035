from __future__ import annotations

import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def test_squared_difference(float_dtype, device):
    check_op(
        F.squared_difference,
        lambda a, b: (a - b) ** 2,
        [(3, 4), (3, 4)],
        dtype=float_dtype,
        device=device,
    )


def test_squared_difference_shape_mismatch():
    with pytest.raises(type_check.InvalidType, match="x1.shape == x2.shape"):
        F.squared_difference(np.ones(2, np.float32), np.ones(3, np.float32))
