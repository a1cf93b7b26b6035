import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 2), ()])
def test_mean_absolute_error(shape, float_dtype, device):
    check_op(
        F.mean_absolute_error,
        lambda a, b: np.asarray(np.abs(a - b).mean()),
        [shape, shape],
        dtype=float_dtype,
        device=device,
        dodge_nondifferentiable=True,
    )


def test_mean_absolute_error_shape_mismatch():
    with pytest.raises(type_check.InvalidType, match="MeanAbsoluteError"):
        F.mean_absolute_error(np.zeros((2, 3), np.float32), np.zeros(6, np.float32))
