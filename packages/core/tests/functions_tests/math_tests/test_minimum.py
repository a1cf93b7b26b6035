import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize("shape", [(3, 2), ()])
def test_minimum(shape, float_dtype, device):
    check_op(
        F.minimum,
        np.minimum,
        [shape, shape],
        dtype=float_dtype,
        device=device,
        dodge_nondifferentiable=True,
    )


def test_ties_send_gradient_to_x1():
    a = kusari.Variable(np.ones(2, np.float32))
    b = kusari.Variable(np.ones(2, np.float32))
    y = F.minimum(a, b)
    y.grad = np.ones(2, np.float32)
    y.backward()
    np.testing.assert_array_equal(a.grad, [1, 1])
    np.testing.assert_array_equal(b.grad, [0, 0])


def test_shape_mismatch():
    with pytest.raises(type_check.InvalidType, match="minimum"):
        F.minimum(np.ones((3, 2), np.float32), np.ones((2, 3), np.float32))


@pytest.mark.parametrize(
    "shapes", [((3, 2), (3, 1)), ((2,), (3, 2)), ((3, 1), (1, 2)), ((), (2, 3))]
)
def test_broadcast(shapes, float_dtype, device):
    # v7 broadcasts the inputs; each gradient is summed back to its shape.
    check_op(
        F.minimum,
        np.minimum,
        list(shapes),
        dtype=float_dtype,
        device=device,
        dodge_nondifferentiable=True,
    )


def test_dtype_mismatch():
    with pytest.raises(type_check.InvalidType, match="minimum"):
        F.minimum(np.ones(3, np.float32), np.ones(3, np.float64))
