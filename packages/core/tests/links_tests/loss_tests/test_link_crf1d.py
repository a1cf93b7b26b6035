"""Tests of L.CRF1d."""

import numpy as np

import kusari.functions as F
import kusari.links as L
from kusari import gradient_check, serializers


def _seqs(seed=0):
    rng = np.random.default_rng(seed)
    lengths = [2, 4, 3]
    xs = [rng.standard_normal((n, 3)).astype(np.float32) for n in lengths]
    ys = [rng.integers(0, 3, n).astype(np.int32) for n in lengths]
    return xs, ys


def test_params():
    crf = L.CRF1d(4)
    assert crf.cost.shape == (4, 4)
    np.testing.assert_array_equal(crf.cost.array, 0)
    crf = L.CRF1d(2, initial_cost=np.ones((2, 2), np.float32))
    np.testing.assert_array_equal(crf.cost.array, 1)


def test_time_major_matches_function():
    crf = L.CRF1d(3, initial_cost=np.arange(9, dtype=np.float32).reshape(3, 3) / 9)
    xs, ys = _seqs()
    order = [1, 2, 0]
    txs = F.transpose_sequence([xs[i] for i in order])
    tys = F.transpose_sequence([ys[i] for i in order])
    expect = F.crf1d(crf.cost, txs, tys).array
    np.testing.assert_allclose(crf(txs, tys).array, expect, rtol=1e-6)
    # batch-major input in any order gives the same mean loss
    np.testing.assert_allclose(crf(xs, ys, transpose=True).array, expect, rtol=1e-6)
    no = crf(xs, ys, reduce="no", transpose=True)
    assert no.shape == (3,)


def test_argmax_transpose_restores_order():
    crf = L.CRF1d(3)
    xs, _ = _seqs(1)
    score, path = crf.argmax(xs, transpose=True)
    assert [len(p) for p in path] == [2, 4, 3]
    for x, p in zip(xs, path):  # zero cost: the path is the per-step argmax
        np.testing.assert_array_equal(p, x.argmax(1))
    order = [1, 2, 0]
    txs = F.transpose_sequence([xs[i] for i in order])
    score2, path2 = crf.argmax(txs)
    assert len(path2) == 4
    np.testing.assert_allclose(score.array, score2.array)


def test_gradient_and_save_load(tmp_path):
    crf = L.CRF1d(3)
    crf.cost.array = np.random.default_rng(4).standard_normal((3, 3))
    xs, ys = _seqs(2)
    xs = [x.astype(np.float64) for x in xs]

    def f(*xs_):
        return crf(list(xs_), ys, transpose=True)

    gradient_check.check_backward(
        f, tuple(xs), None, params=[crf.cost], atol=1e-5, rtol=1e-4
    )
    path = tmp_path / "crf.npz"
    serializers.save_npz(str(path), crf)
    other = L.CRF1d(3)
    serializers.load_npz(str(path), other)
    np.testing.assert_array_equal(other.cost.array, crf.cost.array.astype(np.float32))
