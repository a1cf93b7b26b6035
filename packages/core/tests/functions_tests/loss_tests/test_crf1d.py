import itertools

import numpy as np
import pytest

import kusari.functions as F
from kusari import Variable
from kusari.testing import check_op

N_LABEL = 3
LENGTHS = [3, 2, 2, 1]  # sorted by decreasing length, as transpose_sequence gives


def _batch_sizes(lengths):
    return [sum(1 for n in lengths if n > t) for t in range(max(lengths))]


def _seq(arrs, b, length):
    return [arrs[t][b] for t in range(length)]


def _path_score(cost, xs, path, b):
    s = sum(xs[t][b, y] for t, y in enumerate(path))
    return s + sum(cost[a, c] for a, c in zip(path[:-1], path[1:], strict=True))


def _brute_force_nll(cost, xs, ys, lengths):
    out = []
    for b, n in enumerate(lengths):
        scores = [
            _path_score(cost, xs, p, b)
            for p in itertools.product(range(N_LABEL), repeat=n)
        ]
        log_z = np.logaddexp.reduce(scores)
        out.append(log_z - _path_score(cost, xs, _seq(ys, b, n), b))
    return np.array(out)


def _brute_force_best(cost, xs, lengths):
    scores, paths = [], []
    for b, n in enumerate(lengths):
        cands = {
            p: _path_score(cost, xs, p, b)
            for p in itertools.product(range(N_LABEL), repeat=n)
        }
        best = max(cands, key=cands.get)
        scores.append(cands[best])
        paths.append(best)
    return np.array(scores), paths


def _make_ys(seed=0):
    rng = np.random.default_rng(seed)
    return [
        rng.integers(0, N_LABEL, bs).astype(np.int32) for bs in _batch_sizes(LENGTHS)
    ]


@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_crf1d(reduce, float_dtype, device):
    ys = _make_ys()
    shapes = [(N_LABEL, N_LABEL)] + [(bs, N_LABEL) for bs in _batch_sizes(LENGTHS)]

    def op(cost, *xs):
        return F.crf1d(cost, list(xs), ys, reduce=reduce)

    def ref(cost, *xs):
        loss = _brute_force_nll(cost, xs, ys, LENGTHS)
        return np.asarray(loss.mean()) if reduce == "mean" else loss

    check_op(op, ref, shapes, dtype=float_dtype, device=device)


def test_crf1d_equal_lengths(float_dtype):
    ys = [np.array([0, 2], np.int32), np.array([1, 1], np.int32)]

    def ref(cost, x0, x1):
        return np.asarray(_brute_force_nll(cost, [x0, x1], ys, [2, 2]).mean())

    check_op(
        lambda cost, x0, x1: F.crf1d(cost, [x0, x1], ys),
        ref,
        [(N_LABEL, N_LABEL), (2, N_LABEL), (2, N_LABEL)],
        dtype=float_dtype,
    )


def test_argmax_crf1d(float_dtype, device):
    shapes = [(N_LABEL, N_LABEL)] + [(bs, N_LABEL) for bs in _batch_sizes(LENGTHS)]
    rng = np.random.default_rng(1)
    host = [rng.uniform(-1, 1, s) for s in shapes]
    cost = host[0]
    xs = host[1:]
    expected_score, expected_paths = _brute_force_best(cost, xs, LENGTHS)
    score, path = F.argmax_crf1d(
        cost.astype(float_dtype), [x.astype(float_dtype) for x in xs]
    )
    assert len(path) == len(xs)
    for t, p in enumerate(path):
        assert p.shape == (xs[t].shape[0],)
        assert p.dtype == np.int32
        assert p.tolist() == [expected_paths[b][t] for b in range(xs[t].shape[0])]
    tol = 2e-2 if float_dtype == np.float16 else 1e-5
    np.testing.assert_allclose(score.array, expected_score, atol=tol, rtol=tol)
    assert score.dtype == float_dtype

    def op(cost, *xs):
        return F.argmax_crf1d(cost, list(xs))[0]

    def ref(cost, *xs):
        return _brute_force_best(cost, xs, LENGTHS)[0]

    # The score is piecewise linear: its second derivative is zero where the
    # path does not change, which the double backward check confirms.
    check_op(
        op,
        ref,
        [lambda r, d, a=a: a.astype(d) for a in host],
        dtype=float_dtype,
        device=device,
    )


def test_crf1d_gradient_matches_marginals():
    cost = Variable(np.zeros((2, 2)))
    xs = [Variable(np.zeros((1, 2))) for _ in range(2)]
    loss = F.crf1d(cost, xs, [np.array([0], np.int32)] * 2)
    loss.backward()
    # uniform model: each label has marginal 1/2, observed label 0
    np.testing.assert_allclose(xs[0].grad, [[-0.5, 0.5]])
    np.testing.assert_allclose(cost.grad, [[-0.75, 0.25], [0.25, 0.25]])


def test_crf1d_bad_reduce():
    with pytest.raises(ValueError, match="'mean' and 'no'"):
        F.crf1d(
            np.zeros((2, 2), np.float32),
            [np.zeros((1, 2), np.float32)],
            [np.zeros(1, np.int32)],
            reduce="sum",
        )


def test_crf1d_unsorted_batches():
    xs = [np.zeros((1, 2), np.float32), np.zeros((2, 2), np.float32)]
    ys = [np.zeros(1, np.int32), np.zeros(2, np.int32)]
    with pytest.raises(ValueError, match="decreasing"):
        F.crf1d(np.zeros((2, 2), np.float32), xs, ys)
    with pytest.raises(ValueError, match="decreasing"):
        F.argmax_crf1d(np.zeros((2, 2), np.float32), xs)


def test_crf1d_bad_cost_shape():
    with pytest.raises(ValueError, match="square"):
        F.crf1d(
            np.zeros((2, 3), np.float32),
            [np.zeros((1, 2), np.float32)],
            [np.zeros(1, np.int32)],
        )
    with pytest.raises(ValueError, match="xs\\[0\\]"):
        F.argmax_crf1d(np.zeros((2, 2), np.float32), [np.zeros((1, 3), np.float32)])
