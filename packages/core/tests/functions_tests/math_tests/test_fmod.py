import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check

_rng = np.random.default_rng(1)
# fmod jumps where x / divisor crosses an integer: keep the quotient's
# fractional part inside [0.2, 0.8].
DIVISOR = _rng.uniform(0.7, 1.3, (3, 2)) * _rng.choice([-1, 1], (3, 2))
X = DIVISOR * (_rng.integers(-3, 4, (3, 2)) + _rng.uniform(0.2, 0.8, (3, 2)))


def test_fmod(float_dtype, device):
    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    check_op(
        F.fmod,
        np.fmod,
        [X, DIVISOR],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_shape_mismatch():
    with pytest.raises(type_check.InvalidType, match="fmod"):
        F.fmod(np.ones((2, 3), np.float32), np.ones((3,), np.float32))


def test_dtype_mismatch():
    with pytest.raises(type_check.InvalidType, match="fmod"):
        F.fmod(np.ones(3, np.float32), np.ones(3, np.float64))
