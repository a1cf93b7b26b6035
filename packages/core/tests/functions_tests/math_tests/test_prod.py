import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _away_from_zero(rng, dtype):
    return (rng.uniform(0.5, 1.5, (2, 3, 2)) * rng.choice([-1, 1], (2, 3, 2))).astype(
        dtype
    )


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_prod(axis, keepdims, float_dtype, device):
    check_op(
        lambda x: F.prod(x, axis=axis, keepdims=keepdims),
        lambda x: np.prod(x, axis=axis, keepdims=keepdims),
        [_away_from_zero],
        dtype=float_dtype,
        device=device,
    )


@pytest.mark.parametrize("axis", [None, 1, (0, 1)])
def test_prod_with_zeros(axis, float_dtype, device):
    def with_zeros(rng, dtype):
        x = rng.uniform(0.5, 1.5, (3, 4))
        x[0, 1] = 0
        x[1, 2] = x[1, 3] = 0
        return x.astype(dtype)

    check_op(
        lambda x: F.prod(x, axis=axis),
        lambda x: np.prod(x, axis=axis),
        [with_zeros],
        dtype=float_dtype,
        device=device,
    )


def test_prod_zero_gradient_is_exact():
    x = kusari.Variable(np.array([2.0, 0.0, 3.0]))
    F.prod(x).backward()
    np.testing.assert_array_equal(x.grad, [0.0, 6.0, 0.0])


def test_prod_0dim(float_dtype, device):
    check_op(F.prod, lambda x: x, [()], dtype=float_dtype, device=device)


def test_bad_axis():
    with pytest.raises(ValueError, match="prod"):
        F.prod(np.ones((2, 3), np.float32), axis=3)


def test_int_input():
    with pytest.raises(type_check.InvalidType, match="prod"):
        F.prod(np.ones(3, np.int32))
