"""Tests of L.BlackOut."""

import numpy as np

import kusari.functions as F
import kusari.links as L
from kusari import gradient_check


def _link():
    bo = L.BlackOut(3, [3, 1, 2, 4], 2)
    bo.W.array[...] = np.random.default_rng(0).standard_normal((4, 3))
    return bo


def test_params():
    bo = L.BlackOut(3, [3, 1, 2, 4], 2)
    assert bo.W.shape == (4, 3)
    assert np.isnan(bo.W.array).all()  # Chainer gives W no initializer
    assert bo.sample_size == 2


def test_matches_function_with_sample_data():
    bo = _link()
    x = np.random.default_rng(1).standard_normal((3, 3)).astype(np.float32)
    t = np.array([0, 2, 3], np.int32)
    bo.sample_data = np.array([[1, 2], [0, 3], [1, 1]], np.int32)
    loss = bo(x, t)
    expect = F.black_out(x, t, bo.W, bo.sample_data)
    np.testing.assert_allclose(loss.array, expect.array, rtol=1e-6)


def test_sampling_and_gradient():
    bo = _link()
    x = np.random.default_rng(2).standard_normal((2, 3))
    t = np.array([1, 3], np.int32)
    loss = bo(x.astype(np.float32), t)
    assert loss.shape == () and np.isfinite(loss.array)
    bo.W.array = bo.W.array.astype(np.float64)
    bo.sample_data = np.array([[0, 2], [2, 0]], np.int32)
    gradient_check.check_backward(bo, (x, t), None, params=[bo.W], atol=1e-5, rtol=1e-4)
