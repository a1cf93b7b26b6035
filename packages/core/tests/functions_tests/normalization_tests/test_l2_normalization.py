import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _ref(x, eps, axis):
    return x / (np.sqrt((x * x).sum(axis=axis, keepdims=True)) + eps)


@pytest.mark.parametrize(
    "shape,axis", [((3, 4), 1), ((3, 4), 0), ((2, 3, 4), (1, 2)), ((2, 3, 4), -1)]
)
def test_normalize(shape, axis, float_dtype, device):
    check_op(
        lambda x: F.normalize(x, axis=axis),
        lambda x: _ref(x, 1e-5, axis),
        [shape],
        dtype=float_dtype,
        device=device,
    )


def test_normalize_eps():
    y = F.normalize(np.array([[3.0, 4.0]]), eps=5.0)
    np.testing.assert_allclose(y.array, [[0.3, 0.4]])


def test_normalize_bad_axis():
    with pytest.raises(type_check.InvalidType, match="axis"):
        F.normalize(np.zeros((2, 3), np.float32), axis=2)


def test_normalize_zero_vector_gradient_is_finite():
    # At a zero vector the norm's own gradient is 0 / 0; the gradient of
    # x / (|x| + eps) there is gy / eps, with the other rows unaffected.
    x = kusari.Variable(np.array([[0.0, 0.0], [3.0, 4.0]], np.float64))
    y = F.normalize(x, eps=0.5)
    gy = np.array([[1.0, -2.0], [1.0, 1.0]])
    y.grad = gy
    y.backward()
    assert np.isfinite(x.grad).all()
    np.testing.assert_allclose(x.grad[0], gy[0] / 0.5)
    n = 5.0 + 0.5
    expected = gy[1] / n - x.array[1] * (gy[1] @ x.array[1]) / (n * n * 5.0)
    np.testing.assert_allclose(x.grad[1], expected)
