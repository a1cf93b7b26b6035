import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "shape,axis", [((3, 4), 0), ((3, 4), 1), ((2, 3, 4), -1), ((1, 2), 0)]
)
def test_separate(shape, axis, float_dtype, device):
    check_op(
        lambda x: F.separate(x, axis),
        lambda x: tuple(np.take(x, i, axis) for i in range(x.shape[axis])),
        [shape],
        dtype=float_dtype,
        device=device,
    )


def test_separate_views_and_tuple():
    x = np.zeros((1, 3), np.float32)
    ys = F.separate(x)
    assert isinstance(ys, tuple) and len(ys) == 1
    assert np.shares_memory(ys[0].array, x)


def test_separate_partial_grad():
    x = kusari.Variable(np.ones((3, 2), np.float32))
    ys = F.separate(x, 0)
    F.sum(ys[1]).backward()
    np.testing.assert_array_equal(x.grad, [[0, 0], [1, 1], [0, 0]])


def test_separate_bad_axis():
    with pytest.raises(type_check.InvalidType, match="Separate"):
        F.separate(np.zeros((3, 4), np.float32), 2)
