import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_average(axis, keepdims, float_dtype, device):
    check_op(
        lambda x: F.average(x, axis=axis, keepdims=keepdims),
        lambda x: np.mean(x, axis=axis, keepdims=keepdims),
        [(2, 3, 2)],
        dtype=float_dtype,
        device=device,
    )


def _weights(shape):
    def gen(rng, dtype):
        return rng.uniform(0.5, 1.5, shape).astype(dtype)

    return gen


@pytest.mark.parametrize("keepdims", [False, True])
def test_weighted_all(keepdims, float_dtype, device):
    def ref(x, w):
        y = np.average(x, weights=w)
        return y.reshape((1, 1, 1)) if keepdims else y

    check_op(
        lambda x, w: F.average(x, weights=w, keepdims=keepdims),
        ref,
        [(2, 3, 2), _weights((2, 3, 2))],
        dtype=float_dtype,
        device=device,
    )


@pytest.mark.parametrize("axis", [1, -1])
def test_weighted_axis(axis, float_dtype, device):
    n = (2, 3, 2)[axis]
    check_op(
        lambda x, w: F.average(x, axis=axis, weights=w),
        lambda x, w: np.average(x, axis=axis, weights=w),
        [(2, 3, 2), _weights((n,))],
        dtype=float_dtype,
        device=device,
    )


def test_mean_is_average():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(F.mean(x, axis=1).array, [1, 4])
    np.testing.assert_allclose(
        F.mean(x, axis=0, keepdims=True).array, [[1.5, 2.5, 3.5]]
    )


def test_bad_weights():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match="average"):
        F.average(x, axis=1, weights=np.ones(2, np.float32))
    with pytest.raises(ValueError, match="average"):
        F.average(x, weights=np.ones(3, np.float32))
    with pytest.raises(ValueError, match="average"):
        F.average(x, axis=(0, 1), weights=np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match="average"):
        F.average(x, axis=1, weights=np.ones(3, np.float64))


def test_bad_axis():
    with pytest.raises(ValueError, match="average"):
        F.average(np.ones((2, 3), np.float32), axis=2)
