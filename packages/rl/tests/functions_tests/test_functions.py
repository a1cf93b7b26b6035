import numpy as np
import pytest

import kusari
from kusari.testing import check_op
from kusari.utils import type_check
from kusari_rl import functions as RF

DTYPES = [np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES)
def test_bound_by_tanh(dtype):
    low = np.array([-1.0, 0.0, 2.0])
    high = np.array([1.0, 4.0, 3.0])

    def ref(x):
        return np.tanh(x) * (high - low) / 2 + (high + low) / 2

    check_op(lambda x: RF.bound_by_tanh(x, low, high), ref, [(5, 3)], dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_bound_by_tanh_on_the_unit_box_is_tanh(dtype):
    low, high = -np.ones(3), np.ones(3)
    check_op(lambda x: RF.bound_by_tanh(x, low, high), np.tanh, [(5, 3)], dtype=dtype)
    x = kusari.Variable(np.zeros((2, 3), dtype))
    # The shortcut: one tanh node, no scale and shift behind it.
    assert RF.bound_by_tanh(x, low, high).creator.inputs[0] is x.node
    # A box of width 2 that is shifted still needs the shift.
    y = RF.bound_by_tanh(x, low + 1, high + 1)
    np.testing.assert_allclose(y.array, np.ones((2, 3)))


def test_bound_by_tanh_limits_and_none():
    x = np.array([[-50.0, 50.0]], np.float32)
    y = RF.bound_by_tanh(x, np.array([-2.0, 1.0]), np.array([0.0, 3.0])).array
    np.testing.assert_allclose(y, [[-2.0, 3.0]], atol=1e-6)
    np.testing.assert_array_equal(RF.bound_by_tanh(x, None, None).array, x)
    with pytest.raises(ValueError, match="bound_by_tanh"):
        RF.bound_by_tanh(x, None, np.ones(2))


def _ltm_ref(diag, non_diag):
    b, n = diag.shape
    out = np.zeros((b, n, n))
    for i in range(b):
        out[i][np.tril_indices(n, -1)] = non_diag[i]
        out[i][np.diag_indices(n)] = diag[i]
    return out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 3])
def test_lower_triangular_matrix(dtype, n):
    check_op(
        RF.lower_triangular_matrix,
        _ltm_ref,
        [(4, n), (4, n * (n - 1) // 2)],
        dtype=dtype,
    )


def test_lower_triangular_matrix_layout_and_errors():
    y = RF.lower_triangular_matrix(
        np.array([[1.0, 2.0, 3.0]], np.float32), np.array([[4.0, 5.0, 6.0]], np.float32)
    ).array
    np.testing.assert_array_equal(y[0], [[1, 0, 0], [4, 2, 0], [5, 6, 3]])
    with pytest.raises(type_check.InvalidType, match="non_diag"):
        RF.lower_triangular_matrix(
            np.ones((1, 3), np.float32), np.ones((1, 2), np.float32)
        )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("omega", [0.5, 3.0])
def test_mellowmax(dtype, omega):
    def ref(x):
        return np.log(np.mean(np.exp(omega * x), axis=1)) / omega

    check_op(lambda x: RF.mellowmax(x, omega=omega), ref, [(3, 4)], dtype=dtype)


def test_mellowmax_limits():
    q = np.array([[0.0, 1.0, 5.0]], np.float64)
    # Large omega approaches the max, small omega the mean.
    assert abs(float(RF.mellowmax(q, omega=200.0).array[0]) - 5.0) < 0.01
    assert abs(float(RF.mellowmax(q, omega=1e-4).array[0]) - 2.0) < 1e-3


def test_maximum_entropy_mellowmax():
    rng = np.random.default_rng(0)
    q = rng.normal(size=(6, 4)).astype(np.float32)
    q[0] = 1.0  # all equal: the uniform policy
    p = RF.maximum_entropy_mellowmax(q, omega=2.0).array
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(p[0], 0.25, rtol=1e-5)
    # Its expected value matches mellowmax's (the defining property).
    mm = RF.mellowmax(q.astype(np.float64), omega=2.0).array
    np.testing.assert_allclose((p * q).sum(axis=1), mm, atol=1e-4)
    with pytest.raises(ValueError, match="maximum_entropy_mellowmax"):
        RF.maximum_entropy_mellowmax(np.ones(3, np.float32))


@pytest.mark.parametrize("dtype", DTYPES)
def test_sum_arrays(dtype):
    check_op(
        lambda *xs: RF.sum_arrays(xs),
        lambda *xs: sum(xs),
        [(2, 3), (2, 3), (2, 3)],
        dtype=dtype,
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_weighted_sum_arrays(dtype):
    w = [0.5, -2.0]
    check_op(
        lambda *xs: RF.weighted_sum_arrays(xs, w),
        lambda a, b: w[0] * a + w[1] * b,
        [(2, 3), (2, 3)],
        dtype=dtype,
    )


def test_sum_arrays_shape_mismatch():
    with pytest.raises(type_check.InvalidType):
        RF.sum_arrays([np.ones(2, np.float32), np.ones(3, np.float32)])
    with pytest.raises(type_check.InvalidType, match="len"):
        RF.weighted_sum_arrays([np.ones(2, np.float32)], [1.0, 2.0])


@pytest.mark.parametrize("dtype", DTYPES)
def test_scale_grad(dtype):
    check_op(lambda x: RF.scale_grad(x, 1.0), lambda x: x, [(2, 3)], dtype=dtype)
    x = kusari.Variable(np.ones(3, dtype))
    y = RF.scale_grad(x * 2, -3.0)
    y.grad = np.ones(3, dtype)
    y.backward()
    np.testing.assert_allclose(x.grad, -6.0)
