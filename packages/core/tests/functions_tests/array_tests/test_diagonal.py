import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "shape,offset,a1,a2",
    [
        ((3, 3), 0, 0, 1),
        ((3, 4), 1, 0, 1),
        ((4, 3), -2, 0, 1),
        ((2, 3, 4), 0, 1, 2),
        ((2, 3, 4), 1, 2, 0),
        ((2, 3, 4), -1, -1, -3),
        ((3, 2), 5, 0, 1),
    ],
)
def test_diagonal(shape, offset, a1, a2, float_dtype, device):
    check_op(
        lambda x: F.diagonal(x, offset, a1, a2),
        lambda x: np.diagonal(x, offset, a1, a2).copy(),
        [shape],
        dtype=float_dtype,
        device=device,
    )


def test_diagonal_is_view():
    x = np.zeros((3, 3), np.float32)
    assert np.shares_memory(F.diagonal(x).array, x)


def test_diagonal_errors():
    with pytest.raises(type_check.InvalidType, match="Diagonal"):
        F.diagonal(np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="cannot be the same"):
        F.diagonal(np.zeros((3, 3), np.float32), 0, 1, -1)
