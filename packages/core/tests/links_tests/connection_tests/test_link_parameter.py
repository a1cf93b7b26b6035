"""Tests of L.Parameter (the link)."""

import numpy as np

import kusari
import kusari.links as L
from kusari import serializers


def test_holds_and_returns_array(tmp_path):
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    p = L.Parameter(a)
    assert isinstance(p.W, kusari.Parameter)
    assert p.W.array is a and p.W.dtype == np.float64
    y = p()
    np.testing.assert_array_equal(y.array, a)
    assert y is not p.W
    p.cleargrads()
    loss = kusari.functions.sum(p() * 2.0)
    loss.backward()
    np.testing.assert_array_equal(p.W.grad, 2)
    path = tmp_path / "p.npz"
    serializers.save_npz(str(path), p)
    other = L.Parameter(np.zeros((2, 3)))
    serializers.load_npz(str(path), other)
    np.testing.assert_array_equal(other.W.array, a)
