import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _ln_ref(x, gamma, beta, eps=1e-5):
    axis = tuple(range(1, x.ndim))
    xh = (x - x.mean(axis=axis, keepdims=True)) / np.sqrt(
        x.var(axis=axis, keepdims=True) + eps
    )
    return xh * gamma + beta


@pytest.mark.parametrize("shape", [(3, 5), (2, 3, 4)])
def test_layer_normalization(shape, float_dtype, device):
    tol = None
    if float_dtype == np.float16:
        tol = {"backward": (1e-1, 1e-1), "double_backward": (2e-1, 2e-1)}
    check_op(
        F.layer_normalization,
        _ln_ref,
        [shape, shape[1:], shape[1:]],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_layer_normalization_eps():
    y = F.layer_normalization(np.array([[0.0, 2.0]]), np.ones(2), np.zeros(2), eps=3.0)
    np.testing.assert_allclose(y.array, [[-0.5, 0.5]])


def test_layer_normalization_shape_mismatch():
    with pytest.raises(type_check.InvalidType, match="gamma"):
        F.layer_normalization(
            np.zeros((2, 3), np.float32),
            np.ones(4, np.float32),
            np.zeros(4, np.float32),
        )


def test_layer_normalization_mixed_dtypes(device):
    check_op(
        F.layer_normalization,
        _ln_ref,
        [(3, 5), (5,), (5,)],
        input_dtypes=(np.float16, np.float32, np.float32),
        dtype=np.float16,
        device=device,
        tolerances={"backward": (1e-1, 1e-1), "double_backward": (2e-1, 2e-1)},
    )
