import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _away_from_zero(shape):
    def gen(rng, dtype):
        return (rng.uniform(0.5, 1.5, shape) * rng.choice([-1, 1], shape)).astype(dtype)

    return gen


@pytest.mark.parametrize(
    "shape,axis",
    [((3, 4), None), ((3, 4), 0), ((2, 3, 4), 1), ((2, 3, 4), -1), ((), None)],
)
def test_cumprod(shape, axis, float_dtype, device):
    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    check_op(
        lambda x: F.cumprod(x, axis=axis),
        lambda x: np.cumprod(x, axis=axis),
        [_away_from_zero(shape)],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


@pytest.mark.parametrize("axis", [0, 1])
def test_cumprod_with_zeros(axis, float_dtype, device):
    def gen(rng, dtype):
        x = rng.uniform(0.5, 1.5, (3, 4))
        x[1, 1] = 0
        x[2, 0] = x[0, 3] = 0
        return x.astype(dtype)

    check_op(
        lambda x: F.cumprod(x, axis=axis),
        lambda x: np.cumprod(x, axis=axis),
        [gen],
        dtype=float_dtype,
        device=device,
    )


def test_zero_gradient_is_exact():
    x = kusari.Variable(np.array([2.0, 0.0, 3.0]))
    y = F.cumprod(x)
    y.grad = np.ones(3)
    y.backward()
    # y = [x0, x0 x1, x0 x1 x2]
    np.testing.assert_array_equal(x.grad, [1.0, 2.0 + 6.0, 0.0])


def test_bad_axis():
    with pytest.raises(ValueError, match="cumprod"):
        F.cumprod(np.ones((2, 3), np.float32), axis=-3)


def test_int_input():
    with pytest.raises(type_check.InvalidType, match="cumprod"):
        F.cumprod(np.ones(3, np.int32), axis=0)
