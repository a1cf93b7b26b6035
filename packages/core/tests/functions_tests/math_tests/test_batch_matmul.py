import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check

# batch_matmul is deprecated (as in Chainer 7); its results are still checked.
pytestmark = pytest.mark.filterwarnings(
    "ignore:batch_matmul is deprecated:DeprecationWarning"
)


def _t(x):
    return x.swapaxes(-1, -2)


@pytest.mark.parametrize("transa", [False, True])
@pytest.mark.parametrize("transb", [False, True])
def test_batch_matmul(transa, transb, float_dtype, device):
    sa = (2, 4, 3) if transa else (2, 3, 4)
    sb = (2, 2, 4) if transb else (2, 4, 2)
    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    check_op(
        lambda a, b: F.batch_matmul(a, b, transa, transb),
        lambda a, b: (_t(a) if transa else a) @ (_t(b) if transb else b),
        [sa, sb],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_batch_matmul_vectors(float_dtype, device):
    # 2-D operands are batches of column vectors: (B, N) -> (B, N, 1).
    check_op(
        lambda a, b: F.batch_matmul(a, b, transa=True),
        lambda a, b: a[:, :, None].swapaxes(1, 2) @ b[:, :, None],
        [(2, 3), (2, 3)],
        dtype=float_dtype,
        device=device,
    )


def test_batch_matmul_bad_ndim():
    with pytest.raises(type_check.InvalidType, match="batch_matmul"):
        F.batch_matmul(
            np.zeros((2, 2, 2, 2), np.float32), np.zeros((2, 2, 2), np.float32)
        )


def test_batch_matmul_length_mismatch():
    with pytest.raises(type_check.InvalidType):
        F.batch_matmul(np.zeros((2, 2, 3), np.float32), np.zeros((2, 2, 2), np.float32))


@pytest.mark.filterwarnings("error")
def test_batch_matmul_warns_deprecated():
    # Chainer 7 code and its tests expect the warning on every call.
    a = np.ones((2, 3, 4), np.float32)
    b = np.ones((2, 4, 5), np.float32)
    with pytest.warns(DeprecationWarning, match="Use matmul instead"):
        y = F.batch_matmul(a, b)
    np.testing.assert_array_equal(y.array, np.full((2, 3, 5), 4, np.float32))
