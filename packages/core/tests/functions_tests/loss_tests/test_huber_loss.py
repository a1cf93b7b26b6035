import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _ref(x, t, delta, reduce):
    d = x - t
    y = np.where(np.abs(d) <= delta, 0.5 * d * d, delta * (np.abs(d) - 0.5 * delta))
    return y.sum(axis=1) if reduce == "sum_along_second_axis" else y


@pytest.mark.parametrize("reduce", ["sum_along_second_axis", "no"])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 2)])
def test_huber_loss(shape, reduce, float_dtype, device):
    delta = 0.5

    def op(x, t):
        return F.huber_loss(x, t, delta=delta, reduce=reduce)

    def x_gen(rng, dtype):
        x = rng.uniform(-1, 1, shape)
        # keep |x - t| away from delta, where the second derivative jumps
        return np.where(np.abs(np.abs(x) - delta) < 0.1, x * 1.5, x).astype(dtype)

    def t_gen(rng, dtype):
        return np.zeros(shape, dtype)

    check_op(
        op,
        lambda x, t: _ref(x, t, delta, reduce),
        [x_gen, t_gen],
        dtype=float_dtype,
        device=device,
    )


def test_huber_loss_values():
    x = np.array([[0.5, -3.0]], np.float32)
    y = F.huber_loss(x, np.zeros_like(x), delta=1.0, reduce="no")
    np.testing.assert_allclose(y.array, [[0.125, 2.5]])


def test_huber_loss_bad_reduce():
    x = np.zeros((2, 2), np.float32)
    with pytest.raises(ValueError, match="sum_along_second_axis"):
        F.huber_loss(x, x, 1.0, reduce="mean")


def test_huber_loss_shape_mismatch():
    with pytest.raises(type_check.InvalidType, match="HuberLoss"):
        F.huber_loss(np.zeros((2, 2), np.float32), np.zeros((2, 3), np.float32), 1.0)
