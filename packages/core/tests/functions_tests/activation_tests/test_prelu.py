import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _away_from_zero(shape):
    # Inputs off the kink at 0. (dodge_nondifferentiable would flag the curvature of
    # x * W under float16's large step as a kink; see the report.)
    def gen(rng, dtype):
        return (rng.uniform(0.1, 1, shape) * rng.choice([-1, 1], shape)).astype(dtype)

    return gen


def _prelu(x, w):
    wb = w.reshape((1,) + w.shape + (1,) * (x.ndim - 1 - w.ndim))
    return np.where(x >= 0, x, x * wb)


@pytest.mark.parametrize(
    "x_shape,w_shape",
    [((4, 3), (3,)), ((2, 3, 4), (3,)), ((2, 3, 4), (3, 4)), ((3, 2), ())],
)
def test_prelu(x_shape, w_shape, float_dtype, device):
    check_op(
        F.prelu,
        _prelu,
        [_away_from_zero(x_shape), w_shape],
        dtype=float_dtype,
        device=device,
    )


def test_prelu_shape_mismatch():
    with pytest.raises(type_check.InvalidType, match="W.shape"):
        F.prelu(np.zeros((2, 3), np.float32), np.zeros(4, np.float32))


def test_prelu_dtype_mismatch():
    with pytest.raises(type_check.InvalidType, match="dtype"):
        F.prelu(np.zeros((2, 3), np.float32), np.zeros(3, np.float64))
