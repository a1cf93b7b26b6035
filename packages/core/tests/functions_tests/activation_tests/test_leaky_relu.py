import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize("slope", [0.2, -0.5])
def test_leaky_relu(slope, float_dtype, device):
    check_op(
        lambda x: F.leaky_relu(x, slope),
        lambda x: np.where(x >= 0, x, slope * x),
        [(3, 4)],
        dtype=float_dtype,
        device=device,
        dodge_nondifferentiable=True,
    )


def test_leaky_relu_int_input():
    with pytest.raises(type_check.InvalidType):
        F.leaky_relu(np.zeros(2, np.int32))
