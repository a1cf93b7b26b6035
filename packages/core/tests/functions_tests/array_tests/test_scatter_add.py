import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _ref(slices):
    def ref(a, b):
        y = a.copy()
        np.add.at(y, slices, b)
        return y

    return ref


@pytest.mark.parametrize(
    "ashape,slices,bshape",
    [
        ((4, 3), (slice(1, 3),), (2, 3)),
        ((4, 3), ([0, 2, 0],), (3, 3)),
        ((4, 3), (slice(None), 1), (4,)),
        ((4, 3), ([0, 0], [1, 1]), (2,)),
        ((4, 3), (slice(0, 2),), (3,)),
        ((5,), np.array([1, 1, 4]), (3,)),
    ],
)
def test_scatter_add(ashape, slices, bshape, float_dtype, device):
    check_op(
        lambda a, b: F.scatter_add(a, slices, b),
        _ref(slices),
        [ashape, bshape],
        dtype=float_dtype,
        device=device,
    )


def test_scatter_add_does_not_modify_input():
    a = np.zeros(3, np.float32)
    F.scatter_add(a, [1], np.ones(1, np.float32))
    np.testing.assert_array_equal(a, 0)


def test_scatter_add_errors():
    a = np.zeros((3, 2), np.float32)
    with pytest.raises(type_check.InvalidType, match="ScatterAdd"):
        F.scatter_add(a, 0, np.zeros(2, np.float64))
    with pytest.raises(IndexError, match="scatter_add"):
        F.scatter_add(a, 5, np.zeros(2, np.float32))


def test_scatter_add_too_many_indices_is_a_type_error():
    # Chainer v7 checks the index count against a.ndim before indexing.
    a = np.zeros((4, 3, 2), np.float32)
    with pytest.raises(type_check.InvalidType, match="ScatterAdd"):
        F.scatter_add(a, (0, 0, 0, 0), np.zeros((), np.float32))
    # None adds an axis and Ellipsis takes none: these still fit.
    y = F.scatter_add(a, (None, 0, Ellipsis, 1), np.ones((1, 3), np.float32))
    assert y.array[0, :, 1].tolist() == [1.0, 1.0, 1.0]
    # A 2-d boolean mask takes two axes: 0, 0 and a (3, 2) mask are four.
    mask = np.ones((3, 2), bool)
    with pytest.raises(type_check.InvalidType, match="ScatterAdd"):
        F.scatter_add(a, (0, 0, mask), np.zeros((6,), np.float32))
    y = F.scatter_add(a, (0, mask), np.ones((6,), np.float32))
    assert y.array[0].sum() == 6.0
