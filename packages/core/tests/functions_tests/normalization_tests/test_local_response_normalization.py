import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _lrn_ref(x, n, k, alpha, beta):
    half = n // 2
    c = x.shape[1]
    s = np.zeros_like(x)
    for i in range(c):
        lo, hi = max(0, i - half), min(c, i + half + 1)
        s[:, i] = (x[:, lo:hi] ** 2).sum(axis=1)
    return x / (k + alpha * s) ** beta


@pytest.mark.parametrize(
    "shape,n", [((2, 7, 3), 5), ((2, 4), 3), ((1, 5, 2, 2), 4), ((1, 12, 2), 19)]
)
def test_local_response_normalization(shape, n, float_dtype, device):
    k, alpha, beta = 1.0, 0.5, 0.75
    check_op(
        lambda x: F.local_response_normalization(x, n, k, alpha, beta),
        lambda x: _lrn_ref(x, n, k, alpha, beta),
        [shape],
        dtype=float_dtype,
        device=device,
    )


def test_local_response_normalization_defaults():
    x = np.random.default_rng(0).normal(size=(2, 6, 3, 3)).astype(np.float32)
    np.testing.assert_allclose(
        F.local_response_normalization(x).array,
        _lrn_ref(x, 5, 2.0, 1e-4, 0.75),
        rtol=1e-5,
    )


def test_local_response_normalization_errors():
    with pytest.raises(type_check.InvalidType, match="ndim"):
        F.local_response_normalization(np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="n must"):
        F.local_response_normalization(np.zeros((2, 3), np.float32), n=0)
