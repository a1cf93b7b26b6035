"""Tests of L.InceptionBN."""

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import gradient_check, testing


def _x(shape):
    return np.random.default_rng(0).standard_normal(shape).astype(np.float32)


def test_structure():
    inc = L.InceptionBN(3, 2, 2, 3, 2, 4, "max", proj_pool=5)
    names = {n for n, _ in inc.namedlinks(skipself=True)}
    assert names == {
        "/conv1",
        "/conv1n",
        "/proj3",
        "/proj3n",
        "/conv3",
        "/conv3n",
        "/proj33",
        "/proj33n",
        "/conv33a",
        "/conv33an",
        "/conv33b",
        "/conv33bn",
        "/poolp",
        "/poolpn",
    }
    assert inc.conv3.b is None and inc.conv33b.W.shape == (4, 4, 3, 3)
    y = inc(_x((2, 3, 5, 5)))
    assert y.shape == (2, 2 + 3 + 4 + 5, 5, 5)


def test_avg_no_out1_stride():
    inc = L.InceptionBN(3, 0, 2, 3, 2, 4, "avg", stride=2)
    assert not hasattr(inc, "conv1") and not hasattr(inc, "poolp")
    x = _x((2, 3, 6, 6))
    y = inc(x)
    assert y.shape == (2, 3 + 4 + 3, 3, 3)
    np.testing.assert_allclose(
        y.array[:, 7:], F.average_pooling_2d(x, 3, stride=2, pad=1).array, rtol=1e-6
    )


def test_test_mode_uses_running_stats():
    inc = L.InceptionBN(3, 0, 2, 3, 2, 4, "max", stride=2)
    x = _x((2, 3, 4, 4))
    with kusari.using_config("train", False):
        y = inc(x)
    assert y.shape == (2, 10, 2, 2)
    np.testing.assert_array_equal(inc.proj3n.avg_mean, 0)


def test_errors():
    with pytest.raises(NotImplementedError):
        L.InceptionBN(3, 1, 1, 1, 1, 1, "min", proj_pool=1)
    with pytest.raises(ValueError):
        L.InceptionBN(3, 1, 1, 1, 1, 1, "max")  # out1 needs proj_pool
    # Chainer asserted these; code written for it catches AssertionError.
    with pytest.raises(AssertionError, match="stride=2"):
        L.InceptionBN(3, 1, 1, 1, 1, 1, "avg", proj_pool=1, stride=2)
    with pytest.raises(AssertionError, match="proj_pool=None"):
        L.InceptionBN(3, 1, 1, 1, 1, 1, "max")


@testing.fix_random(7)  # weights come from the global RNG; keep them off ReLU kinks
def test_gradient():
    inc = L.InceptionBN(2, 1, 1, 1, 1, 1, "avg", proj_pool=1, dtype=np.float64)
    for p in inc.params():
        p.array = p.array.astype(np.float64)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 2, 3, 3))
    gy = rng.standard_normal((3, 4, 3, 3))
    gradient_check.check_backward(
        inc,
        x,
        gy,
        params=[inc.conv1.W, inc.conv33b.W, inc.poolpn.gamma],
        atol=1e-4,
        rtol=1e-3,
    )
