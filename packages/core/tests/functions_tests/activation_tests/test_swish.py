import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _swish(x, beta):
    b = beta.reshape((1,) + beta.shape + (1,) * (x.ndim - 1 - beta.ndim))
    return x / (1 + np.exp(-b * x))


@pytest.mark.parametrize(
    "x_shape,b_shape",
    [((4, 3), (3,)), ((2, 3, 4), (3,)), ((2, 3, 4), (3, 4)), ((3, 2), ())],
)
def test_swish(x_shape, b_shape, float_dtype, device):
    check_op(F.swish, _swish, [x_shape, b_shape], dtype=float_dtype, device=device)


def test_swish_shape_mismatch():
    with pytest.raises(type_check.InvalidType, match="beta.shape"):
        F.swish(np.zeros((2, 3), np.float32), np.zeros(4, np.float32))
