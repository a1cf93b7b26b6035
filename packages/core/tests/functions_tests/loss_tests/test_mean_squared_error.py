import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 2), ()])
def test_mean_squared_error(shape, float_dtype, device):
    check_op(
        F.mean_squared_error,
        lambda a, b: np.asarray(((a - b) ** 2).mean()),
        [shape, shape],
        dtype=float_dtype,
        device=device,
    )


def test_mean_squared_error_value():
    y = F.mean_squared_error(
        np.array([1.0, 2.0], np.float32), np.array([0.0, 0.0], np.float32)
    )
    assert y.dtype == np.float32
    assert float(y.array) == pytest.approx(2.5)


def test_mean_squared_error_shape_mismatch():
    with pytest.raises(type_check.InvalidType, match="MeanSquaredError"):
        F.mean_squared_error(np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float32))


def test_mean_squared_error_dtype_mismatch():
    with pytest.raises(type_check.InvalidType):
        F.mean_squared_error(np.zeros(3, np.float32), np.zeros(3, np.float64))
