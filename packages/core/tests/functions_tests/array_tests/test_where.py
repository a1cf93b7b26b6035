import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "cshape,xshape,yshape",
    [
        ((3, 4), (3, 4), (3, 4)),
        ((3, 4), (4,), (3, 1)),
        ((4,), (3, 4), (3, 4)),
        ((), (2, 3), (2, 3)),
        ((2, 1), (1, 3), ()),
    ],
)
def test_where(cshape, xshape, yshape, float_dtype, device):
    cond = np.random.default_rng(2).random(cshape) > 0.5
    c_dev = kusari.get_device(device).send(cond)
    check_op(
        lambda x, y: F.where(c_dev, x, y),
        lambda x, y: np.where(cond, x, y),
        [xshape, yshape],
        dtype=float_dtype,
        device=device,
    )


def test_where_condition_variable():
    c = kusari.Variable(np.array([True, False]))
    y = F.where(c, np.ones(2, np.float32), np.zeros(2, np.float32))
    np.testing.assert_array_equal(y.array, [1, 0])


def test_where_errors():
    x = np.zeros(3, np.float32)
    with pytest.raises(type_check.InvalidType, match="bool"):
        F.where(np.zeros(3, np.int32), x, x)
    with pytest.raises(type_check.InvalidType, match="Where"):
        F.where(np.ones(3, bool), x, x.astype(np.float64))
    with pytest.raises(type_check.InvalidType):
        F.where(np.ones(3, bool), x, np.zeros(4, np.float32))
