import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "shape,axis", [((4,), 0), ((3, 4), 1), ((2, 3, 4), -1), ((2, 3, 4), 1)]
)
def test_flip(shape, axis, float_dtype, device):
    check_op(
        lambda x: F.flip(x, axis),
        lambda x: np.flip(x, axis),
        [shape],
        dtype=float_dtype,
        device=device,
    )


def test_flip_is_view():
    x = np.zeros((2, 3), np.float32)
    assert np.shares_memory(F.flip(x, 1).array, x)


@pytest.mark.parametrize("axis", [2, -3])
def test_flip_bad_axis(axis):
    with pytest.raises(type_check.InvalidType, match="Flip"):
        F.flip(np.zeros((2, 3), np.float32), axis)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_private_flip_helper_matches_numpy(axis):
    # v7's tests call functions.array.flip._flip on raw arrays.
    from kusari.functions.array.flip import _flip

    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(_flip(x, axis), np.flip(x, axis))
