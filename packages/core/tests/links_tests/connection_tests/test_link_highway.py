"""Tests of L.Highway."""

import numpy as np

import kusari.functions as F
import kusari.links as L
from kusari import gradient_check


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def test_structure_and_output():
    hw = L.Highway(3)
    shapes = {n: p.shape for n, p in hw.namedparams()}
    assert shapes == {
        "/plain/W": (3, 3),
        "/plain/b": (3,),
        "/transform/W": (3, 3),
        "/transform/b": (3,),
    }
    np.testing.assert_array_equal(hw.transform.b.array, -1)
    np.testing.assert_array_equal(hw.plain.b.array, 0)
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    h = np.maximum(x @ hw.plain.W.array.T, 0)
    t = _sigmoid(x @ hw.transform.W.array.T - 1)
    np.testing.assert_allclose(hw(x).array, h * t + x * (1 - t), rtol=1e-5, atol=1e-6)


def test_options_and_gradient():
    hw = L.Highway(2, nobias=True, activate=F.tanh, init_Wh=0.5, init_Wt=0.0)
    assert hw.plain.b is None and hw.transform.b is None
    x = np.ones((1, 2), np.float32)
    np.testing.assert_allclose(hw(x).array, 0.5 * np.tanh(1.0) + 0.5, rtol=1e-6)
    rng = np.random.default_rng(1)
    hw_t = L.Highway(2, activate=F.tanh)
    for p in hw_t.params():
        p.array = p.array.astype(np.float64)
    gradient_check.check_backward(
        hw_t,
        rng.standard_normal((3, 2)),
        rng.standard_normal((3, 2)),
        params=list(hw_t.params()),
        atol=1e-6,
        rtol=1e-5,
    )
