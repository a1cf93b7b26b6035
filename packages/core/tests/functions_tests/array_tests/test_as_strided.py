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


def test_stride_array_views_the_owning_buffer():
    from kusari.functions.array.as_strided import _stride_array

    base = np.arange(12, dtype=np.float32)
    flipped = base.reshape(3, 4)[::-1]  # a view of `base` with a negative stride
    # Offsets and strides count from the start of base's memory, not flipped's.
    np.testing.assert_array_equal(_stride_array(flipped, (12,), (1,), 0), base)
    np.testing.assert_array_equal(
        _stride_array(base, (3, 3), (-1, 2), 3), [[3, 5, 7], [2, 4, 6], [1, 3, 5]]
    )
    np.testing.assert_array_equal(
        _stride_array(base[:4], (2, 3, 4), (0, 4, 1), 0),
        np.broadcast_to(base.reshape(3, 4), (2, 3, 4)),
    )


def test_stride_array_out_of_buffer_and_type():
    from kusari.functions.array.as_strided import _stride_array

    x = np.arange(8, dtype=np.float32)
    with pytest.raises(ValueError, match="_stride_array: out of buffer: too small"):
        _stride_array(x, (3, 3), (-1, 2), 1)
    with pytest.raises(ValueError, match="_stride_array: out of buffer: too large"):
        _stride_array(x, (3,), (4,), 0)
    with pytest.raises(TypeError, match="_stride_array: expected a numpy.ndarray"):
        _stride_array([1, 2], (2,), (1,), 0)


def test_as_strided_of_integers_has_no_gradient():
    v = kusari.Variable(np.arange(4, dtype=np.int32))
    y = F.as_strided(v, (4,), (-1,), 3)
    y.grad = np.ones(4, np.int32)
    with pytest.raises(TypeError, match="as_strided: backward needs a float"):
        kusari.grad((y,), (v,))
