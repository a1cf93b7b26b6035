import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op


def _seeded(ratio):
    def op(h, x):
        np.random.seed(0)
        return F.zoneout(h, x, ratio)

    return op


def _ref(ratio):
    def ref(h, x):
        np.random.seed(0)
        flag_x = np.random.rand(*x.shape) >= ratio
        return np.where(flag_x, x, h)

    return ref


@pytest.mark.parametrize("shape,ratio", [((3, 4), 0.5), ((2, 3, 4), 0.3)])
def test_zoneout_fixed_seed(shape, ratio, float_dtype):
    # CPU only: the reference replays NumPy's generator draw for draw.
    check_op(_seeded(ratio), _ref(ratio), [shape, shape], dtype=float_dtype)


def test_zoneout_statistics_and_grads():
    np.random.seed(1)
    h = kusari.Variable(np.zeros((300, 300), np.float32))
    x = kusari.Variable(np.ones((300, 300), np.float32))
    y = F.zoneout(h, x, 0.3)
    kept_h = (y.array == 0).mean()
    assert abs(kept_h - 0.3) < 0.01
    F.sum(y).backward()
    np.testing.assert_array_equal(h.grad, (y.array == 0).astype(np.float32))
    np.testing.assert_array_equal(x.grad, (y.array == 1).astype(np.float32))


def test_zoneout_test_mode_returns_x():
    h, x = np.zeros(3, np.float32), np.ones(3, np.float32)
    with kusari.using_config("train", False):
        y = F.zoneout(h, x, 0.9)
    assert y.array is x


def test_zoneout_errors():
    h, x = np.zeros(3, np.float32), np.ones(3, np.float32)
    with pytest.raises(ValueError, match="using_config"):
        F.zoneout(h, x, train=False)
    with pytest.raises(ValueError, match="same shape"):
        F.zoneout(np.zeros(4, np.float32), x)
