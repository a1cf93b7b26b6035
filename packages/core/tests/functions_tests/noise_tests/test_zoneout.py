import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.functions.noise.zoneout import Zoneout
from kusari.testing import check_op
from kusari.utils import type_check


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


def test_zoneout_keeps_its_flags_on_the_creator():
    rng = np.random.default_rng(4)
    h = kusari.Variable(rng.uniform(-1, 1, (5, 6)).astype(np.float32))
    x = kusari.Variable(rng.uniform(-1, 1, (5, 6)).astype(np.float32))
    y = F.zoneout(h, x, 0.4)
    node = y.creator
    assert isinstance(node, Zoneout) and node.zoneout_ratio == 0.4
    assert node.flag_x.dtype == bool and node.flag_x.shape == (5, 6)
    np.testing.assert_array_equal(node.flag_h, ~node.flag_x)
    # the mix can be rebuilt from the flags, as Chainer code does
    np.testing.assert_array_equal(
        y.array, h.array * node.flag_h + x.array * node.flag_x
    )
    gy = rng.uniform(-1, 1, (5, 6)).astype(np.float32)
    y.grad = gy
    y.backward()
    np.testing.assert_array_equal(h.grad, gy * node.flag_h)
    np.testing.assert_array_equal(x.grad, gy * node.flag_x)


def test_zoneout_double_backward_with_fixed_flags(monkeypatch):
    rng = np.random.default_rng(5)
    flags = rng.uniform(size=(3, 4))
    monkeypatch.setattr(np.random, "rand", lambda *shape: flags)
    h, x, gy, ggh, ggx = (rng.uniform(-1, 1, (3, 4)) for _ in range(5))
    kusari.gradient_check.check_double_backward(
        lambda h, x: F.zoneout(h, x, 0.5), (h, x), gy, (ggh, ggx)
    )


def test_zoneout_dtype_mismatch_is_reported():
    with pytest.raises(type_check.InvalidType, match="Zoneout"):
        F.zoneout(np.zeros(3, np.float32), np.ones(3, np.float64))
