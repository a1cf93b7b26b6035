import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "shape,a1,a2",
    [((3, 4), 0, 1), ((2, 3, 4), 0, 2), ((2, 3, 4), -1, 1), ((2, 3, 4), 1, 1)],
)
def test_swapaxes(shape, a1, a2, float_dtype, device):
    check_op(
        lambda x: F.swapaxes(x, a1, a2),
        lambda x: np.swapaxes(x, a1, a2),
        [shape],
        dtype=float_dtype,
        device=device,
    )


def test_swapaxes_is_view():
    x = np.zeros((2, 3), np.float32)
    assert np.shares_memory(F.swapaxes(x, 0, 1).array, x)


def test_swapaxes_bad_axis():
    with pytest.raises(type_check.InvalidType, match="Swapaxes"):
        F.swapaxes(np.zeros((2, 3), np.float32), 0, 2)
