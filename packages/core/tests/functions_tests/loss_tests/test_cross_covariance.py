import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _ref(y, z, reduce):
    yc = y - y.mean(0)
    zc = z - z.mean(0)
    c = yc.T @ zc / len(y)
    return c if reduce == "no" else np.asarray(0.5 * (c**2).sum())


@pytest.mark.parametrize("reduce", ["half_squared_sum", "no"])
def test_cross_covariance(reduce, float_dtype, device):
    check_op(
        lambda y, z: F.cross_covariance(y, z, reduce=reduce),
        lambda y, z: _ref(y, z, reduce),
        [(4, 3), (4, 2)],
        dtype=float_dtype,
        device=device,
    )


def test_cross_covariance_bad_reduce():
    a = np.zeros((2, 2), np.float32)
    with pytest.raises(ValueError, match="half_squared_sum"):
        F.cross_covariance(a, a, reduce="mean")


def test_cross_covariance_bad_shapes():
    with pytest.raises(type_check.InvalidType, match="CrossCovariance"):
        F.cross_covariance(np.zeros((2, 2), np.float32), np.zeros((3, 2), np.float32))
