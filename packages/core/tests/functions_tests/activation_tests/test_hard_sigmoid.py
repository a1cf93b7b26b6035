import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def test_hard_sigmoid(float_dtype, device):
    def gen(rng, dtype):
        return rng.uniform(-4, 4, (3, 5)).astype(dtype)

    check_op(
        F.hard_sigmoid,
        lambda x: np.clip(0.2 * x + 0.5, 0, 1),
        [gen],
        dtype=float_dtype,
        device=device,
        dodge_nondifferentiable=True,
    )


def test_hard_sigmoid_int_input():
    with pytest.raises(type_check.InvalidType):
        F.hard_sigmoid(np.zeros(2, np.int32))
