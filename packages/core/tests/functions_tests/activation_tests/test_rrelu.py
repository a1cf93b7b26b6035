import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _fixed_r(shape, dtype):
    return np.random.default_rng(1).uniform(0.1, 0.3, shape).astype(dtype)


def test_rrelu_with_given_r(float_dtype, device):
    r = _fixed_r((3, 4), float_dtype)

    def op(x):
        # The numerical check runs in float64: give r the input's dtype.
        return F.rrelu(
            x, 0.1, 0.3, r=kusari.backend.get_device(device).send(r.astype(x.dtype))
        )

    check_op(
        op,
        lambda x: np.where(x >= 0, x, x * r.astype(np.float64)),
        [(3, 4)],
        dtype=float_dtype,
        device=device,
        dodge_nondifferentiable=True,
    )


def test_rrelu_test_mode(float_dtype, device):
    with kusari.using_config("train", False):
        check_op(
            lambda x: F.rrelu(x, 0.1, 0.3),
            lambda x: np.where(x >= 0, x, 0.2 * x),
            [(3, 4)],
            dtype=float_dtype,
            device=device,
            dodge_nondifferentiable=True,
        )


def test_rrelu_train_samples_r():
    x = -np.ones((50, 40), np.float32)
    y, r = F.rrelu(x, 0.1, 0.3, return_r=True)
    assert r.shape == x.shape and r.dtype == np.float32
    assert 0.1 <= r.min() and r.max() <= 0.3 and r.std() > 0.01
    np.testing.assert_allclose(y.array, -r)


def test_rrelu_test_mode_ignores_r():
    x = np.array([-1.0, 1.0], np.float32)
    with kusari.using_config("train", False):
        y, r = F.rrelu(x, 0.1, 0.3, r=np.full(2, 0.25, np.float32), return_r=True)
    np.testing.assert_allclose(r, [0.2, 0.2])
    np.testing.assert_allclose(y.array, [-0.2, 1.0])


def test_rrelu_return_variable_by_default():
    assert isinstance(F.rrelu(np.zeros(2, np.float32)), kusari.Variable)


@pytest.mark.parametrize("lu", [(0.5, 0.2), (-0.1, 0.3), (0.1, 1.5)])
def test_rrelu_bad_bounds(lu):
    with pytest.raises(ValueError, match="rrelu"):
        F.rrelu(np.zeros(2, np.float32), *lu)


def test_rrelu_bad_r():
    with pytest.raises(type_check.InvalidType, match="r.shape"):
        F.rrelu(np.zeros(2, np.float32), r=np.zeros(3, np.float32))
    with pytest.raises(type_check.InvalidType, match="r.dtype"):
        F.rrelu(np.zeros(2, np.float32), r=np.zeros(2, np.float64))
