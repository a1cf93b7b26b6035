import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check

CASES = [
    ((2, 3, 4), (3, 4, 2), 2),
    ((2, 3), (3, 2), 1),
    ((2, 3), (4,), 0),
    ((2, 3, 4), (4, 2, 3), ([1, 2], [2, 0])),
    ((3, 2), (3, 4), (0, 0)),
]


@pytest.mark.parametrize("sa,sb,axes", CASES)
def test_tensordot(sa, sb, axes, float_dtype, device):
    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    check_op(
        lambda a, b: F.tensordot(a, b, axes),
        lambda a, b: np.tensordot(a, b, axes),
        [sa, sb],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_length_mismatch():
    with pytest.raises(type_check.InvalidType, match="tensordot"):
        F.tensordot(np.zeros((2, 3), np.float32), np.zeros((4, 2), np.float32), 1)


def test_bad_axes():
    a = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="tensordot"):
        F.tensordot(a, a, 3)
    with pytest.raises(ValueError, match="tensordot"):
        F.tensordot(a, a, ([0, 1], [0]))
    with pytest.raises(TypeError, match="tensordot"):
        F.tensordot(a, a, "x")


def test_non_float_refused():
    with pytest.raises(type_check.InvalidType, match="tensordot"):
        F.tensordot(np.zeros((2, 3), np.float32), np.zeros((3, 2), np.int32), 1)


def test_mixed_float_dtypes():
    # Chainer v7 accepts mixed floats: NumPy's result dtype out, and each
    # gradient in its own input's dtype.
    rng = np.random.default_rng(0)
    a = kusari.Variable(rng.uniform(-1, 1, (2, 3)).astype(np.float16))
    b = kusari.Variable(rng.uniform(-1, 1, (3, 4)).astype(np.float64))
    y = F.tensordot(a, b, 1)
    assert y.dtype == np.float64
    np.testing.assert_allclose(y.array, np.tensordot(a.array, b.array, 1), rtol=1e-6)
    y.grad = np.ones((2, 4))
    y.backward()
    assert a.grad.dtype == np.float16 and b.grad.dtype == np.float64
    np.testing.assert_allclose(b.grad, a.array.astype(np.float64).T @ np.ones((2, 4)))


def test_shape_mismatch_is_also_a_value_error():
    a = np.zeros((4, 3, 2), np.float32)
    with pytest.raises(ValueError, match=r"a.shape\[1\] == b.shape\[0\]"):
        F.tensordot(a, np.zeros((2, 3, 5), np.float32))
    assert issubclass(F.math.tensordot.TensorDotShapeError, type_check.InvalidType)


@pytest.mark.parametrize("axes", [(), ((), (), ()), [0]])
def test_axes_sequence_not_a_pair(axes):
    a = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="tensordot: axes must be a pair"):
        F.tensordot(a, a, axes)
