import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_elu(alpha, float_dtype, device):
    check_op(
        lambda x: F.elu(x, alpha),
        lambda x: np.where(x > 0, x, alpha * np.expm1(x)),
        [(3, 4)],
        dtype=float_dtype,
        device=device,
        dodge_nondifferentiable=True,
    )


def test_selu(float_dtype, device):
    a, s = 1.6732632423543772, 1.0507009873554805
    check_op(
        F.selu,
        lambda x: s * np.where(x > 0, x, a * np.expm1(x)),
        [(3, 4)],
        dtype=float_dtype,
        device=device,
        dodge_nondifferentiable=True,
    )


def test_selu_arguments():
    x = np.array([-1.0, 2.0])
    np.testing.assert_allclose(
        F.selu(x, alpha=2.0, scale=3.0).array, [3 * 2 * np.expm1(-1.0), 6.0]
    )


def test_elu_large_input_no_overflow():
    y = F.elu(np.array([1000.0, -1000.0], np.float32))
    np.testing.assert_array_equal(y.array, [1000.0, -1.0])


def test_elu_int_input():
    with pytest.raises(type_check.InvalidType):
        F.elu(np.zeros(2, np.int32))
