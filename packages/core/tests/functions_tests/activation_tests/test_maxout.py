import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _maxout(x, pool, axis):
    axis %= x.ndim
    s = x.shape
    shape = s[:axis] + (s[axis] // pool, pool) + s[axis + 1 :]
    return x.reshape(shape).max(axis=axis + 1)


@pytest.mark.parametrize(
    "pool,axis,shape",
    [(2, 1, (2, 6)), (3, 1, (2, 6, 2)), (2, -1, (3, 2, 4)), (2, 0, (4, 3))],
)
def test_maxout(pool, axis, shape, float_dtype, device):
    check_op(
        lambda x: F.maxout(x, pool, axis),
        lambda x: _maxout(x, pool, axis),
        [shape],
        dtype=float_dtype,
        device=device,
        dodge_nondifferentiable=True,
    )


def test_maxout_indivisible():
    with pytest.raises(type_check.InvalidType, match="pool_size"):
        F.maxout(np.zeros((2, 5), np.float32), 2)


@pytest.mark.parametrize("pool", [0, -1, 1.5])
def test_maxout_bad_pool_size(pool):
    with pytest.raises(ValueError, match="pool_size"):
        F.maxout(np.zeros((2, 4), np.float32), pool)


def test_maxout_bad_axis():
    with pytest.raises(ValueError, match="axis"):
        F.maxout(np.zeros((2, 4), np.float32), 2, axis=2)
