"""Tests of L.EmbedID."""

import numpy as np
import pytest

import kusari.links as L
from kusari import gradient_check, serializers


def test_params_and_lookup():
    embed = L.EmbedID(5, 3)
    assert embed.W.shape == (5, 3)
    ids = np.array([[0, 4], [2, 2]], np.int32)
    y = embed(ids)
    assert y.shape == (2, 2, 3)
    np.testing.assert_array_equal(y.array, embed.W.array[ids])
    # Normal(1.0): unit scale, not LeCun
    big = L.EmbedID(2000, 10)
    assert 0.9 < big.W.array.std() < 1.1


def test_ignore_label():
    embed = L.EmbedID(4, 2, ignore_label=-1)
    y = embed(np.array([1, -1], np.int32))
    np.testing.assert_array_equal(y.array[1], 0)
    embed.cleargrads()
    y.grad = np.ones_like(y.array)
    y.backward()
    np.testing.assert_array_equal(embed.W.grad[1], 1)
    np.testing.assert_array_equal(embed.W.grad[[0, 2, 3]], 0)


def test_initial_w_and_from_params():
    W = np.arange(6, dtype=np.float32).reshape(3, 2)
    embed = L.EmbedID(3, 2, initialW=W)
    np.testing.assert_array_equal(embed.W.array, W)
    embed2 = L.EmbedID.from_params(W, ignore_label=0)
    assert embed2.ignore_label == 0 and embed2.W.shape == (3, 2)
    assert "EmbedID" in repr(embed2)


def test_gradient_and_save_load(tmp_path):
    embed = L.EmbedID(4, 3)
    embed.W.array = embed.W.array.astype(np.float64)
    ids = np.array([0, 3, 3], np.int32)
    gy = np.random.default_rng(0).standard_normal((3, 3))
    gradient_check.check_backward(embed, ids, gy, params=[embed.W])
    path = tmp_path / "e.npz"
    serializers.save_npz(str(path), embed)
    other = L.EmbedID(4, 3)
    serializers.load_npz(str(path), other)
    np.testing.assert_array_equal(other.W.array, embed.W.array)


def test_out_of_range():
    with pytest.raises(ValueError, match="embed_id"):
        L.EmbedID(3, 2)(np.array([5], np.int32))
