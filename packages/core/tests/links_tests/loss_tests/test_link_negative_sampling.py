"""Tests of L.NegativeSampling."""

import numpy as np
import pytest

import kusari.functions as F
import kusari.links as L
from kusari import gradient_check, serializers


def _link():
    ns = L.NegativeSampling(3, [4, 0, 2, 1], 2)
    ns.W.array[...] = np.random.default_rng(0).standard_normal((4, 3))
    return ns


def test_params_and_sampler():
    ns = L.NegativeSampling(3, [4, 0, 2, 1], 2, power=0.5)
    assert ns.W.shape == (4, 3) and ns.W.dtype == np.float32
    np.testing.assert_array_equal(ns.W.array, 0)
    samples = ns.sampler.sample((1000,))
    assert samples.dtype == np.int32 and not (samples == 1).any()
    ns64 = L.NegativeSampling(2, [1, 1], 1, dtype=np.float64)
    assert ns64.W.dtype == np.float64


def test_matches_function():
    ns = _link()
    x = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    t = np.array([0, 2, 3, -1, 0], np.int32)
    np.random.seed(7)
    loss, samples = ns(x, t, return_samples=True)
    assert samples.shape == (5, 3)
    np.random.seed(7)
    expect = F.negative_sampling(x, t, ns.W, ns.sampler.sample, 2)
    np.testing.assert_allclose(loss.array, expect.array, rtol=1e-6)
    np.random.seed(7)
    per_row = ns(x, t, reduce="no")
    assert per_row.shape == (5,) and per_row.array[3] == 0
    np.testing.assert_allclose(per_row.array.sum(), loss.array, rtol=1e-5)


def test_gradient():
    ns = _link()
    ns.W.array = ns.W.array.astype(np.float64)
    x = np.random.default_rng(2).standard_normal((3, 3))
    t = np.array([0, 2, 3], np.int32)

    def f(x_):
        np.random.seed(3)
        return ns(x_, t)

    gradient_check.check_backward(f, x, None, params=[ns.W], atol=1e-5, rtol=1e-4)


def test_errors_and_save_load(tmp_path):
    ns = _link()
    with pytest.raises(TypeError):
        ns(np.zeros((1, 3), np.float32), np.zeros(1, np.int32), foo=1)
    path = tmp_path / "ns.npz"
    serializers.save_npz(str(path), ns)
    other = L.NegativeSampling(3, [4, 0, 2, 1], 2)
    serializers.load_npz(str(path), other)
    np.testing.assert_array_equal(other.W.array, ns.W.array)
    ns.to_device("@numpy")
    assert isinstance(ns.sampler.threshold, np.ndarray)
