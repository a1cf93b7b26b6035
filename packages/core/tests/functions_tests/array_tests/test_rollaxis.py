import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "axis,start", [(2, 0), (0, 3), (1, 0), (-1, 1), (0, -1), (2, 2), (0, 0)]
)
def test_rollaxis(axis, start, float_dtype, device):
    check_op(
        lambda x: F.rollaxis(x, axis, start),
        lambda x: np.rollaxis(x, axis, start),
        [(2, 3, 4)],
        dtype=float_dtype,
        device=device,
    )


def test_rollaxis_is_view():
    x = np.zeros((2, 3, 4), np.float32)
    assert np.shares_memory(F.rollaxis(x, 2).array, x)


@pytest.mark.parametrize("axis,start", [(3, 0), (-4, 0), (0, 4), (0, -4)])
def test_rollaxis_bad(axis, start):
    with pytest.raises(type_check.InvalidType, match="Rollaxis"):
        F.rollaxis(np.zeros((2, 3, 4), np.float32), axis, start)
