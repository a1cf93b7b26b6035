import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op


def _ref(shape, strides, offset):
    def ref(x):
        flat = np.ascontiguousarray(x).ravel()
        index = np.lib.stride_tricks.as_strided(
            np.arange(flat.size)[offset:], shape, [s * 8 for s in strides]
        )
        return flat[index]

    return ref


@pytest.mark.parametrize(
    "xshape,shape,strides,offset",
    [
        ((4,), (3, 2), (1, 1), 0),
        ((3, 4), (4, 3), (1, 4), 0),
        ((12,), (2, 3), (6, 2), 1),
        ((6,), (3, 2), (0, 1), 2),
        ((6,), (3,), (-2,), 5),
        ((2, 3), (2, 2, 2), (3, 1, 0), 0),
    ],
)
def test_as_strided(xshape, shape, strides, offset, float_dtype, device):
    check_op(
        lambda x: F.as_strided(x, shape, strides, offset),
        _ref(shape, strides, offset),
        [xshape],
        dtype=float_dtype,
        device=device,
    )


def test_as_strided_overlap_grad_and_view():
    x = kusari.Variable(np.arange(4, dtype=np.float32))
    y = F.as_strided(x, (3, 2), (1, 1), 0)
    assert np.shares_memory(y.array, x.array)
    y.grad = np.ones((3, 2), np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, [1, 2, 2, 1])


def test_as_strided_out_of_buffer():
    x = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match="too large"):
        F.as_strided(x, (3, 2), (1, 1), 1)
    with pytest.raises(ValueError, match="too small"):
        F.as_strided(x, (3,), (-1,), 1)
    with pytest.raises(ValueError, match="different lengths"):
        F.as_strided(x, (3,), (1, 1))
