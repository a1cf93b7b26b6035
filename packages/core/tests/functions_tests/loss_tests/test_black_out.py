import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check

N, D, V, S = 3, 4, 6, 2


def _t(rng, dtype):
    return np.array([0, 2, 5], np.int32)


def _samples(rng, dtype):
    return np.array([[1, 3], [4, 0], [2, 3]], np.int32)


def _ref(x, t, W, samples, reduce):
    loss = np.empty(N)
    for i in range(N):
        ids = np.concatenate([[t[i]], samples[i]])
        y = W[ids] @ x[i]
        log_p = y - np.logaddexp.reduce(y)
        loss[i] = -(log_p[0] + np.log1p(-np.exp(log_p[1:])).sum())
    return np.asarray(loss.mean()) if reduce == "mean" else loss


@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_black_out(reduce, float_dtype, device):
    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    check_op(
        lambda x, t, W, s: F.black_out(x, t, W, s, reduce=reduce),
        lambda x, t, W, s: _ref(x, t, W, s, reduce),
        [(N, D), _t, (V, D), _samples],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_black_out_bad_reduce():
    with pytest.raises(ValueError, match="'mean' and 'no'"):
        F.black_out(
            np.zeros((N, D), np.float32),
            np.zeros(N, np.int32),
            np.zeros((V, D), np.float32),
            np.zeros((N, S), np.int32),
            reduce="sum",
        )


def test_black_out_bad_types():
    with pytest.raises(type_check.InvalidType, match="BlackOut"):
        F.black_out(
            np.zeros((N, D), np.float32),
            np.zeros(N, np.int32),
            np.zeros((V, D), np.float32),
            np.zeros((N + 1, S), np.int32),
        )
