from __future__ import annotations

import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _t(a):
    return np.swapaxes(a, -1, -2) if a.ndim >= 2 else a


@pytest.mark.parametrize(
    "sa,sb",
    [
        ((2, 3), (3, 4)),
        ((3,), (3, 4)),
        ((2, 3), (3,)),
        ((3,), (3,)),
        ((5, 2, 3), (3, 4)),
        ((2, 3), (5, 3, 4)),
        ((5, 2, 3), (5, 3, 4)),
        ((5, 1, 2, 3), (4, 3, 2)),
    ],
)
@pytest.mark.parametrize(
    "transa,transb", [(False, False), (True, False), (False, True), (True, True)]
)
def test_matmul(sa, sb, transa, transb, float_dtype, device):
    if transa and len(sa) >= 2:
        sa = sa[:-2] + (sa[-1], sa[-2])
    if transb and len(sb) >= 2:
        sb = sb[:-2] + (sb[-1], sb[-2])

    def ref(a, b):
        return np.matmul(_t(a) if transa else a, _t(b) if transb else b)

    tol = {"forward": (5e-3, 5e-3)} if float_dtype == np.float16 else None
    check_op(
        lambda a, b: F.matmul(a, b, transa=transa, transb=transb),
        ref,
        [sa, sb],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_matmul_shape_error():
    with pytest.raises(type_check.InvalidType, match="contracted axes"):
        F.matmul(np.ones((2, 3), np.float32), np.ones((4, 5), np.float32))


# Operand dtypes Chainer 7 multiplies together; the product is in the promoted
# dtype and each gradient in its operand's dtype (check_op verifies both).
MIXED = [
    (np.float16, np.float32),
    (np.float32, np.float16),
    (np.float32, np.float64),
]


@pytest.mark.parametrize("da,db", MIXED)
@pytest.mark.parametrize(
    "sa,sb,transa,transb",
    [
        ((2, 3), (3, 4), False, False),
        ((3, 2), (4, 3), True, True),
        ((3,), (3, 4), False, False),
        ((2, 3), (3,), False, False),
        ((5, 2, 3), (3, 4), False, False),
    ],
)
def test_matmul_mixed_dtypes(sa, sb, transa, transb, da, db, device):
    def ref(a, b):
        return np.matmul(_t(a) if transa else a, _t(b) if transb else b)

    check_op(
        lambda a, b: F.matmul(a, b, transa=transa, transb=transb),
        ref,
        [sa, sb],
        input_dtypes=(da, db),
        dtype=np.promote_types(da, db),
        device=device,
    )


def test_matmul_mixed_output_dtype_and_values():
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (3, 4)).astype(np.float16)
    b = rng.uniform(-1, 1, (4, 2)).astype(np.float32)
    y = F.matmul(a, b)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.array, a.astype(np.float64) @ b, rtol=1e-6)


def test_matmul_non_float_operand_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"b\.dtype\.kind == 'f'"):
        F.matmul(np.ones((2, 3), np.float32), np.ones((3, 4), np.int32))


def test_matmul_batch_axes_must_broadcast():
    a = np.zeros((2, 3, 4), np.float32)
    b = np.zeros((3, 4, 3), np.float32)
    with pytest.raises(type_check.InvalidType, match="batch axes"):
        F.matmul(a, b)
    # Broadcastable batch axes are fine.
    assert F.matmul(np.zeros((1, 3, 4), np.float32), b).shape == (3, 3, 3)
