"""Chainer v7 behaviours of sparse_matmul: mixed float dtypes, the error
type for two sparse (or two dense) operands, and the ``CooMatMul`` node."""

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari import gradient_check
from kusari.functions.math.sparse_matmul import CooMatMul
from kusari.utils import type_check
from kusari.utils.sparse import to_coo

_rng = np.random.default_rng(11)
A = _rng.uniform(0.5, 1, (3, 4)) * (_rng.uniform(size=(3, 4)) < 0.6)
A[0, 0] = 0.75  # never all zero
B = _rng.uniform(-1, 1, (4, 2))


@pytest.mark.parametrize(
    "sp_dtype,dn_dtype",
    [(np.float16, np.float32), (np.float32, np.float64), (np.float64, np.float16)],
)
def test_mixed_float_dtypes_give_their_result_type(sp_dtype, dn_dtype):
    sp = to_coo(A.astype(sp_dtype), requires_grad=True)
    b = kusari.Variable(B.astype(dn_dtype))
    y = F.sparse_matmul(sp, b)
    out = np.result_type(sp_dtype, dn_dtype)
    assert y.dtype == out
    expected = A.astype(sp_dtype).astype(out) @ B.astype(dn_dtype).astype(out)
    np.testing.assert_allclose(y.array, expected, rtol=1e-3, atol=1e-3)
    y.grad = np.ones(y.shape, out)
    y.backward()
    # Each gradient comes back in its own input's dtype.
    assert sp.data.grad.dtype == sp_dtype
    assert b.grad.dtype == dn_dtype


def test_mixed_dtypes_dense_on_the_left():
    sp = to_coo(B.T.astype(np.float32))
    a = A.astype(np.float64)
    y = F.sparse_matmul(a, sp, transb=True)
    assert y.dtype == np.float64
    np.testing.assert_allclose(y.array, a @ B.astype(np.float32), rtol=1e-5)


def test_two_sparse_or_two_dense_is_a_value_error_and_a_type_error():
    sp = to_coo(A.astype(np.float32))
    for args in ((sp, sp), (A, B)):
        with pytest.raises(ValueError, match="sparse_matmul: exactly one"):
            F.sparse_matmul(*args)
        with pytest.raises(TypeError, match="sparse_matmul"):
            F.sparse_matmul(*args)


@pytest.mark.parametrize("transa", [False, True])
@pytest.mark.parametrize("transb", [False, True])
@pytest.mark.parametrize("transc", [False, True])
def test_coo_mat_mul_node(transa, transb, transc):
    a = A.T if transa else A
    b = B.T if transb else B
    sp = to_coo(a.astype(np.float32))
    node = CooMatMul(sp.row, sp.col, sp.shape, sp.order, transa, transb, transc)
    y = node.apply((sp.data.array, b.astype(np.float32)))[0]
    expected = A @ B
    np.testing.assert_allclose(y.array, expected.T if transc else expected, rtol=1e-5)

    def op(data, dense):
        return node.apply((data, dense))[0]

    gy = _rng.uniform(-1, 1, y.shape)
    ggd = _rng.uniform(-1, 1, sp.data.shape)
    ggb = _rng.uniform(-1, 1, b.shape)
    data64, b64 = sp.data.array.astype(np.float64), b.astype(np.float64)
    gradient_check.check_backward(op, (data64, b64), gy, atol=1e-4, rtol=1e-4)
    gradient_check.check_double_backward(
        op, (data64, b64), gy, (ggd, ggb), atol=1e-4, rtol=1e-4
    )


def test_coo_mat_mul_batched_and_dtype():
    dense = _rng.uniform(-1, 1, (2, 3, 4)) * (_rng.uniform(size=(2, 3, 4)) < 0.6)
    dense[:, 0, 0] = 0.5
    sp = to_coo(dense.astype(np.float32))
    b = _rng.uniform(-1, 1, (2, 4, 5)).astype(np.float32)
    node = CooMatMul(sp.row, sp.col, sp.shape, dtype=np.float64)
    y = node.apply((sp.data, b))[0]
    assert y.dtype == np.float64
    np.testing.assert_allclose(y.array, dense @ b, rtol=1e-5, atol=1e-6)


def test_coo_mat_mul_bad_arguments():
    sp = to_coo(A.astype(np.float32))
    with pytest.raises(ValueError, match="CooMatMul: sp_row and sp_col"):
        CooMatMul(sp.row, sp.col[:-1], sp.shape)
    with pytest.raises(ValueError, match="CooMatMul: sp_shape"):
        CooMatMul(sp.row, sp.col, (3,))
    with pytest.raises(ValueError, match="CooMatMul: sp_row has ndim"):
        CooMatMul(np.zeros((1, 1, 1), np.int32), np.zeros((1, 1, 1), np.int32), (3, 4))
    node = CooMatMul(sp.row, sp.col, sp.shape)
    with pytest.raises(type_check.InvalidType, match="CooMatMul: sp_data"):
        node.apply((sp.data.array[:-1], B.astype(np.float32)))
    with pytest.raises(type_check.InvalidType, match="contracted axes"):
        node.apply((sp.data, np.zeros((3, 2), np.float32)))
