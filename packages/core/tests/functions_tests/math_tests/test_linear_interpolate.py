import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize("shape", [(3, 2), ()])
def test_linear_interpolate(shape, float_dtype, device):
    check_op(
        F.linear_interpolate,
        lambda p, x, y: p * x + (1 - p) * y,
        [shape, shape, shape],
        dtype=float_dtype,
        device=device,
    )


def test_shape_mismatch():
    with pytest.raises(type_check.InvalidType, match="linear_interpolate"):
        F.linear_interpolate(*[np.zeros(s, np.float32) for s in [(2,), (2,), (3,)]])


def test_dtype_mismatch():
    with pytest.raises(type_check.InvalidType, match="linear_interpolate"):
        F.linear_interpolate(
            np.zeros(2, np.float32), np.zeros(2, np.float64), np.zeros(2, np.float32)
        )
