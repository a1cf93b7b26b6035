"""Tests of L.BinaryHierarchicalSoftmax."""

import numpy as np
import pytest

import kusari.links as L
from kusari import gradient_check, serializers

TREE = ((0, 1), ((2, 3), 4))


def _reference(W, x, t, paths):
    total = 0.0
    for xi, ti in zip(x, t):
        for node, code in paths[int(ti)]:
            total += np.logaddexp(0.0, -code * W[node].dot(xi))
    return total


# Depth-first numbering: root 0, (0, 1) -> 1, ((2, 3), 4) -> 2, (2, 3) -> 3
PATHS = {
    0: [(0, 1), (1, 1)],
    1: [(0, 1), (1, -1)],
    2: [(0, -1), (2, 1), (3, 1)],
    3: [(0, -1), (2, 1), (3, -1)],
    4: [(0, -1), (2, -1)],
}


def test_tree_parsing_and_params():
    hsm = L.BinaryHierarchicalSoftmax(3, TREE)
    assert hsm.W.shape == (4, 3)
    assert (np.abs(hsm.W.array) <= 1).all()
    np.testing.assert_array_equal(hsm.begins, [0, 2, 4, 7, 10, 12])
    np.testing.assert_array_equal(hsm.paths, [0, 1, 0, 1, 0, 2, 3, 0, 2, 3, 0, 2])
    np.testing.assert_array_equal(hsm.codes[:4], [1, 1, 1, -1])
    assert hsm.W.dtype == np.float32
    assert L.BinaryHierarchicalSoftmax(2, TREE, dtype=np.float64).W.dtype == np.float64


def test_loss_matches_reference():
    hsm = L.BinaryHierarchicalSoftmax(3, TREE)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 3)).astype(np.float32)
    t = np.array([0, 1, 2, 3, 4, 2], np.int32)
    loss = hsm(x, t)
    assert loss.shape == () and loss.dtype == np.float32
    expect = _reference(hsm.W.array.astype(np.float64), x, t, PATHS)
    np.testing.assert_allclose(loss.array, expect, rtol=1e-5)


def test_gradient():
    hsm = L.BinaryHierarchicalSoftmax(2, TREE, dtype=np.float64)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 2))
    t = np.array([4, 0, 3], np.int32)
    gradient_check.check_backward(
        hsm, (x, t), None, params=[hsm.W], atol=1e-6, rtol=1e-5
    )


def test_huffman_tree():
    counts = {"a": 5, "b": 1, "c": 2, "d": 9}
    assert L.BinaryHierarchicalSoftmax.create_huffman_tree(counts) == (
        (("b", "c"), "a"),
        "d",
    )
    assert L.BinaryHierarchicalSoftmax.create_huffman_tree({7: 1}) == 7
    tree = L.BinaryHierarchicalSoftmax.create_huffman_tree(
        dict(enumerate([3, 1, 4, 1, 5, 9, 2, 6]))
    )
    hsm = L.BinaryHierarchicalSoftmax(4, tree)
    assert hsm.W.shape == (7, 4)
    with pytest.raises(ValueError, match="empty"):
        L.BinaryHierarchicalSoftmax.create_huffman_tree({})


def test_deep_tree_and_errors():
    tree = 0
    for i in range(1, 1100):  # deeper than Python's recursion limit
        tree = (tree, i)
    hsm = L.BinaryHierarchicalSoftmax(2, tree)
    assert hsm.W.shape == (1099, 2)
    with pytest.raises(ValueError, match="two"):
        L.BinaryHierarchicalSoftmax(2, ((0, 1, 2), 3))
    small = L.BinaryHierarchicalSoftmax(2, TREE)
    x = np.zeros((1, 2), np.float32)
    with pytest.raises(ValueError, match="word ids"):
        small(x, np.array([5], np.int32))
    with pytest.raises(ValueError):
        small(x, np.array([0, 1], np.int32))
    with pytest.raises(TypeError):
        small(x, np.array([0.0]))


def test_save_load(tmp_path):
    hsm = L.BinaryHierarchicalSoftmax(3, TREE)
    path = tmp_path / "hsm.npz"
    serializers.save_npz(str(path), hsm)
    other = L.BinaryHierarchicalSoftmax(3, TREE)
    serializers.load_npz(str(path), other)
    np.testing.assert_array_equal(other.W.array, hsm.W.array)


def test_to_device_keeps_working():
    hsm = L.BinaryHierarchicalSoftmax(3, TREE)
    hsm.to_device("@numpy")
    assert isinstance(hsm.paths, np.ndarray)
    x = np.ones((2, 3), np.float32)
    assert hsm(x, np.array([1, 4], np.int32)).shape == ()
