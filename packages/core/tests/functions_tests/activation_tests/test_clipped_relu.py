import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _wide(rng, dtype):
    return rng.uniform(-2, 2, (3, 4)).astype(dtype)


def test_clipped_relu(float_dtype, device):
    check_op(
        lambda x: F.clipped_relu(x, 1.5),
        lambda x: np.clip(x, 0, 1.5),
        [_wide],
        dtype=float_dtype,
        device=device,
        dodge_nondifferentiable=True,
    )


def test_relu6(float_dtype, device):
    def gen(rng, dtype):
        return rng.uniform(-8, 8, (3, 4)).astype(dtype)

    check_op(
        F.relu6,
        lambda x: np.clip(x, 0, 6),
        [gen],
        dtype=float_dtype,
        device=device,
        dodge_nondifferentiable=True,
    )


def test_clipped_relu_default_z():
    y = F.clipped_relu(np.array([-1.0, 5.0, 30.0], np.float32))
    np.testing.assert_array_equal(y.array, [0.0, 5.0, 20.0])
    assert y.dtype == np.float32


def test_clipped_relu_bad_z():
    with pytest.raises(ValueError, match="clipped_relu"):
        F.clipped_relu(np.zeros(2, np.float32), -1.0)


def test_clipped_relu_int_input():
    with pytest.raises(type_check.InvalidType, match="dtype"):
        F.clipped_relu(np.zeros(2, np.int32))
