import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _spd(x):  # any square matrix -> a symmetric positive definite one
    xp = np
    n = x.shape[0]
    return (x + x.T) * 0.5 + xp.eye(n, dtype=x.dtype) * 3


def _op(x):
    xp = kusari.backend.get_array_module(x)
    return F.cholesky(
        (x + F.transpose(x)) * 0.5 + xp.eye(x.shape[0], dtype=x.dtype) * 3
    )


def test_cholesky(float_dtype, device):
    tol = None
    if float_dtype == np.float16:
        tol = {"forward": (1e-2, 1e-2), "double_backward": (2e-1, 2e-1)}
    check_op(
        _op,
        lambda x: np.linalg.cholesky(_spd(x)),
        [(3, 3)],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_not_positive_definite():
    with pytest.raises(np.linalg.LinAlgError, match="cholesky"):
        F.cholesky(-np.eye(2, dtype=np.float32))


@pytest.mark.parametrize("shape", [(2, 3), (2, 2, 2)])
def test_bad_shapes(shape):
    with pytest.raises(type_check.InvalidType, match="cholesky"):
        F.cholesky(np.zeros(shape, np.float32))
