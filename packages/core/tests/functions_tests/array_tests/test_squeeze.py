import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "shape,axis",
    [
        ((1, 3, 1, 4), None),
        ((1, 3, 1, 4), 0),
        ((1, 3, 1, 4), (0, 2)),
        ((1, 3, 1, 4), -2),
        ((1,), None),
        ((1, 1), (0, 1)),
    ],
)
def test_squeeze(shape, axis, float_dtype, device):
    check_op(
        lambda x: F.squeeze(x, axis),
        lambda x: np.squeeze(x, axis),
        [shape],
        dtype=float_dtype,
        device=device,
    )


def test_squeeze_is_view():
    x = np.zeros((1, 3), np.float32)
    assert np.shares_memory(F.squeeze(x).array, x)


def test_squeeze_not_one():
    with pytest.raises(ValueError, match="size not equal to one"):
        F.squeeze(np.zeros((2, 3), np.float32), 0)


def test_squeeze_bad_axis():
    with pytest.raises(type_check.InvalidType, match="Squeeze"):
        F.squeeze(np.zeros((1, 3), np.float32), 2)
    with pytest.raises(type_check.InvalidType):
        F.squeeze(np.zeros((1, 3), np.float32), -3)


def test_squeeze_axis_type():
    with pytest.raises(TypeError, match="squeeze"):
        F.squeeze(np.zeros((1, 3), np.float32), [0])
