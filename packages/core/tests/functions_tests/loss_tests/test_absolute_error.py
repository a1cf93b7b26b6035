import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 2), ()])
def test_absolute_error(shape, float_dtype, device):
    check_op(
        F.absolute_error,
        lambda a, b: np.abs(a - b),
        [shape, shape],
        dtype=float_dtype,
        device=device,
        dodge_nondifferentiable=True,
    )


def test_absolute_error_shape_mismatch():
    with pytest.raises(type_check.InvalidType, match="AbsoluteError"):
        F.absolute_error(np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float32))


def test_absolute_error_dtype_mismatch():
    with pytest.raises(type_check.InvalidType):
        F.absolute_error(np.zeros(3, np.float32), np.zeros(3, np.float64))
