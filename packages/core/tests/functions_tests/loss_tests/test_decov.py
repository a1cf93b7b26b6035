import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _ref(h, reduce):
    hc = h - h.mean(0)
    c = hc.T @ hc / len(h)
    np.fill_diagonal(c, 0)
    return c if reduce == "no" else np.asarray(0.5 * (c**2).sum())


@pytest.mark.parametrize("reduce", ["half_squared_sum", "no"])
def test_decov(reduce, float_dtype, device):
    check_op(
        lambda h: F.decov(h, reduce=reduce),
        lambda h: _ref(h, reduce),
        [(5, 3)],
        dtype=float_dtype,
        device=device,
    )


def test_decov_bad_reduce():
    with pytest.raises(ValueError, match="half_squared_sum"):
        F.decov(np.zeros((2, 2), np.float32), reduce="no_such")


def test_decov_bad_ndim():
    with pytest.raises(type_check.InvalidType, match="DeCov"):
        F.decov(np.zeros(3, np.float32))
