import numpy as np
import pytest

from kusari.utils import array


@pytest.mark.parametrize("shape", [(), (0,), (2, 3), (5, 0, 7)])
def test_size_of_shape_is_a_plain_int(shape):
    size = array.size_of_shape(shape)
    assert type(size) is int
    assert size == np.empty(shape).size


@pytest.mark.parametrize(
    "in_shape,out_shape",
    [((3,), ()), ((2, 3), (1, 3)), ((2, 3), (2, 1)), ((2, 3, 4), (3, 1))],
)
def test_sum_to_matches_broadcast_adjoint(in_shape, out_shape):
    x = np.arange(1, np.prod(in_shape) + 1, dtype=np.float32).reshape(in_shape)
    y = array.sum_to(x, out_shape)
    assert y.shape == out_shape
    # Broadcasting y back must give a tensor whose total equals x's total.
    assert float(y.sum()) == float(x.sum())


def test_deprecated_helpers_warn_and_work():
    x = np.arange(6, dtype=np.float32).reshape(2, 3, 1)
    with pytest.warns(DeprecationWarning, match="as_vec"):
        assert array.as_vec(x).shape == (6,)
    with pytest.warns(DeprecationWarning, match="as_mat"):
        assert array.as_mat(x).shape == (2, 3)
    with pytest.warns(DeprecationWarning, match="empty_like"):
        e = array.empty_like(x)
    assert e.shape == x.shape and e.dtype == x.dtype
