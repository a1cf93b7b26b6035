"""Tests of L.Inception."""

import numpy as np

import kusari.functions as F
import kusari.links as L
from kusari import gradient_check


def test_structure_and_output():
    inc = L.Inception(3, 2, 2, 3, 2, 4, 5)
    shapes = {n: p.shape for n, p in inc.namedparams()}
    assert shapes["/conv1/W"] == (2, 3, 1, 1)
    assert shapes["/proj3/W"] == (2, 3, 1, 1)
    assert shapes["/conv3/W"] == (3, 2, 3, 3)
    assert shapes["/proj5/W"] == (2, 3, 1, 1)
    assert shapes["/conv5/W"] == (4, 2, 5, 5)
    assert shapes["/projp/W"] == (5, 3, 1, 1)
    assert len(shapes) == 12
    x = np.random.default_rng(0).standard_normal((2, 3, 5, 5)).astype(np.float32)
    y = inc(x)
    assert y.shape == (2, 14, 5, 5)
    out1 = inc.conv1(x)
    out3 = inc.conv3(F.relu(inc.proj3(x)))
    out5 = inc.conv5(F.relu(inc.proj5(x)))
    pool = inc.projp(F.max_pooling_2d(x, 3, stride=1, pad=1))
    expect = F.relu(F.concat((out1, out3, out5, pool), axis=1)).array
    np.testing.assert_allclose(y.array, expect, rtol=1e-6)


def test_initializers_and_lazy():
    inc = L.Inception(None, 1, 1, 1, 1, 1, 1, conv_init=0.1, bias_init=0.2)
    assert inc.conv1.W.array is None
    inc(np.ones((1, 2, 3, 3), np.float32))
    np.testing.assert_allclose(inc.conv3.W.array, 0.1)
    np.testing.assert_allclose(inc.projp.b.array, 0.2)


def test_gradient():
    inc = L.Inception(2, 1, 1, 1, 1, 1, 1)
    for p in inc.params():
        p.array = p.array.astype(np.float64) + 0.1
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 2, 3, 3))
    gy = rng.standard_normal((1, 4, 3, 3))
    gradient_check.check_backward(
        inc, x, gy, params=[inc.conv3.W, inc.projp.b], atol=1e-5, rtol=1e-4
    )
