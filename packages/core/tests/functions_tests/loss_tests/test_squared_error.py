import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 2), ()])
def test_squared_error(shape, float_dtype, device):
    check_op(
        F.squared_error,
        lambda a, b: (a - b) ** 2,
        [shape, shape],
        dtype=float_dtype,
        device=device,
    )


def test_squared_error_shape_mismatch():
    with pytest.raises(type_check.InvalidType, match="SquaredError"):
        F.squared_error(np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float32))


def test_squared_error_int_input():
    with pytest.raises(type_check.InvalidType):
        F.squared_error(np.zeros(3, np.int32), np.zeros(3, np.int32))
