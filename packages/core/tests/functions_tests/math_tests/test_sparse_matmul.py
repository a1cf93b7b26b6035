import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check
from kusari.utils.sparse import CooMatrix, to_coo

_rng = np.random.default_rng(3)
DENSE2 = _rng.uniform(-1, 1, (3, 4)) * (_rng.uniform(size=(3, 4)) < 0.5)
DENSE3 = _rng.uniform(-1, 1, (2, 3, 4)) * (_rng.uniform(size=(2, 3, 4)) < 0.5)
DENSE2[0, 0] = DENSE3[0, 0, 0] = DENSE3[1, 2, 3] = 0.5  # never all zero


def _t(x):
    return x.swapaxes(-1, -2)


@pytest.mark.parametrize("dense", [DENSE2, DENSE3], ids=["2d", "3d"])
@pytest.mark.parametrize("transa", [False, True])
@pytest.mark.parametrize("transb", [False, True])
def test_sparse_times_dense(dense, transa, transb, float_dtype, device):
    sp = to_coo(dense.astype(float_dtype))
    m, k = dense.shape[-2:]
    if transa:
        m, k = k, m
    batch = dense.shape[:-2]
    bshape = batch + ((2, k) if transb else (k, 2))

    def op(data, b):
        return F.sparse_matmul(
            CooMatrix(data, sp.row, sp.col, sp.shape), b, transa=transa, transb=transb
        )

    def ref(data, b):
        a = CooMatrix(data, sp.row, sp.col, sp.shape).to_dense()
        return (_t(a) if transa else a) @ (_t(b) if transb else b)

    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    check_op(
        op,
        ref,
        [sp.data.array, bshape],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


@pytest.mark.parametrize("dense", [DENSE2, DENSE3], ids=["2d", "3d"])
@pytest.mark.parametrize("transa", [False, True])
@pytest.mark.parametrize("transb", [False, True])
def test_dense_times_sparse(dense, transa, transb, float_dtype, device):
    sp = to_coo(dense.astype(float_dtype))
    k, n = dense.shape[-2:]
    if transb:
        k, n = n, k
    batch = dense.shape[:-2]
    ashape = batch + ((k, 2) if transa else (2, k))

    def op(a, data):
        return F.sparse_matmul(
            a, CooMatrix(data, sp.row, sp.col, sp.shape), transa=transa, transb=transb
        )

    def ref(a, data):
        b = CooMatrix(data, sp.row, sp.col, sp.shape).to_dense()
        return (_t(a) if transa else a) @ (_t(b) if transb else b)

    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    check_op(
        op,
        ref,
        [ashape, sp.data.array],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_to_coo_roundtrip():
    sp = to_coo(DENSE2)
    np.testing.assert_array_equal(sp.to_dense(), DENSE2)
    sp3 = to_coo(DENSE3, ldnz=20)
    assert sp3.data.shape == (2, 20)
    assert (sp3.row[:, -1] == -1).all()
    np.testing.assert_array_equal(sp3.to_dense(), DENSE3)
    assert not sp3.data.requires_grad
    assert to_coo(DENSE2, requires_grad=True).data.requires_grad


def test_to_coo_errors():
    with pytest.raises(ValueError, match="to_coo"):
        to_coo(np.zeros(3))
    with pytest.raises(ValueError, match="ldnz"):
        to_coo(DENSE3, ldnz=1)


def test_coo_matrix_errors():
    d = np.ones(2, np.float32)
    i = np.zeros(2, np.int32)
    with pytest.raises(ValueError, match="CooMatrix"):
        CooMatrix(np.ones((1, 1, 1)), i, i, (2, 2))
    with pytest.raises(ValueError, match="CooMatrix"):
        CooMatrix(d, np.zeros(3, np.int32), i, (2, 2))
    with pytest.raises(ValueError, match="CooMatrix"):
        CooMatrix(d, i, i, (2,))
    with pytest.raises(ValueError, match="CooMatrix"):
        CooMatrix(d, i, i, (0, 2))
    with pytest.raises(ValueError, match="CooMatrix"):
        CooMatrix(d, i, i, (2, 2), order="X")


def test_sparse_matmul_errors():
    sp = to_coo(DENSE2.astype(np.float32))
    with pytest.raises(TypeError, match="sparse_matmul"):
        F.sparse_matmul(np.zeros((3, 4), np.float32), np.zeros((4, 2), np.float32))
    with pytest.raises(TypeError, match="sparse_matmul"):
        F.sparse_matmul(sp, sp)
    with pytest.raises(type_check.InvalidType, match="sparse_matmul"):
        F.sparse_matmul(sp, np.zeros((3, 2), np.float32))
    with pytest.raises(type_check.InvalidType, match="sparse_matmul"):
        F.sparse_matmul(sp, np.zeros((4, 2), np.int32))
    with pytest.raises(type_check.InvalidType, match="sparse_matmul"):
        F.sparse_matmul(sp, np.zeros((2, 4, 2), np.float32))
