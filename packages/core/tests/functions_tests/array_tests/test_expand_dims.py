import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "shape,axis",
    [((3, 4), 0), ((3, 4), 1), ((3, 4), 2), ((3, 4), -1), ((3, 4), -3), ((), 0)],
)
def test_expand_dims(shape, axis, float_dtype, device):
    check_op(
        lambda x: F.expand_dims(x, axis),
        lambda x: np.expand_dims(x, axis),
        [shape],
        dtype=float_dtype,
        device=device,
    )


def test_expand_dims_is_view():
    x = np.zeros((2, 3), np.float32)
    assert np.shares_memory(F.expand_dims(x, 1).array, x)


@pytest.mark.parametrize("axis", [3, -4])
def test_expand_dims_bad_axis(axis):
    with pytest.raises(type_check.InvalidType, match="ExpandDims"):
        F.expand_dims(np.zeros((2, 3), np.float32), axis)


def test_expand_dims_axis_type():
    with pytest.raises(TypeError, match="expand_dims"):
        F.expand_dims(np.zeros(2, np.float32), 1.0)
