import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check

CASES = [
    ((3, 4, 2), (4,), 1),
    ((3, 4, 2), (4, 2), 1),
    ((3, 4), (3,), 0),
    ((3, 4, 2), (2,), -1),
]


def _ref(x, y, axis):
    axis = axis % x.ndim
    return y.reshape((1,) * axis + y.shape + (1,) * (x.ndim - axis - y.ndim))


@pytest.mark.parametrize("xs,ys,axis", CASES)
def test_scale(xs, ys, axis, float_dtype, device):
    check_op(
        lambda x, y: F.scale(x, y, axis),
        lambda x, y: x * _ref(x, y, axis),
        [xs, ys],
        dtype=float_dtype,
        device=device,
    )


def test_shape_mismatch():
    with pytest.raises(type_check.InvalidType, match="scale"):
        F.scale(np.zeros((2, 3), np.float32), np.zeros(4, np.float32), axis=1)


def test_shape_mismatch_is_also_an_assertion_error():
    # Chainer asserted this shape in debug mode; code catching
    # AssertionError must still see the mismatch.
    x = np.zeros((3, 2, 3), np.float32)
    y = np.zeros(2, np.float32)
    with pytest.raises(AssertionError, match=r"(?s)scale: .*axis=0"):
        F.scale(x, y, 0)
    with pytest.raises(type_check.InvalidType):
        F.scale(x, y, 0)
