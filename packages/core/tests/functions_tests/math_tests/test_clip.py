import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize("lo,hi", [(-0.5, 0.5), (None, 0.3), (-0.2, None)])
def test_clip(lo, hi, float_dtype, device):
    check_op(
        lambda x: F.clip(x, lo, hi),
        lambda x: np.clip(x, lo, hi),
        [(4, 3)],
        dtype=float_dtype,
        device=device,
        dodge_nondifferentiable=True,
    )


def test_gradient_is_masked():
    x = kusari.Variable(np.array([-2.0, 0.0, 2.0], np.float32))
    y = F.clip(x, -1.0, 1.0)
    y.grad = np.ones(3, np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, [0, 1, 0])


def test_both_none():
    with pytest.raises(ValueError, match="clip"):
        F.clip(np.zeros(3, np.float32), None, None)


def test_min_above_max():
    with pytest.raises(ValueError, match="clip"):
        F.clip(np.zeros(3, np.float32), 1.0, -1.0)


def test_non_scalar_bound():
    with pytest.raises(TypeError, match="clip"):
        F.clip(np.zeros(3, np.float32), [0.0], 1.0)


def test_int_input():
    with pytest.raises(type_check.InvalidType, match="clip"):
        F.clip(np.zeros(3, np.int32), -1.0, 1.0)
