import itertools

import numpy as np
import pytest

import kusari.functions as F
from kusari import Variable
from kusari.testing import check_op


def _collapse(path, blank):
    out, prev = [], None
    for p in path:
        if p != prev and p != blank:
            out.append(p)
        prev = p
    return out


def _brute_force(xs, t, blank, input_length, label_length):
    """-log p(t | x) by enumerating every frame-level path."""
    x = np.stack(xs)
    log_y = x - np.log(np.exp(x).sum(axis=2, keepdims=True))
    n_vocab = x.shape[2]
    losses = []
    for b in range(x.shape[1]):
        target = list(t[b, : label_length[b]])
        total = 0.0
        for path in itertools.product(range(n_vocab), repeat=int(input_length[b])):
            if _collapse(path, blank) == target:
                total += np.exp(sum(log_y[i, b, p] for i, p in enumerate(path)))
        losses.append(-np.log(total))
    return np.array(losses)


CASES = {
    # name: (T, V, blank, t, input_length, label_length)
    "full": (3, 3, 0, [[1, 2], [2, 2]], None, None),
    "blank_last": (3, 3, 2, [[0, 1], [1, 1]], None, None),
    "ragged": (4, 3, 0, [[1, 2], [1, 1], [2, 0], [1, 0]], [4, 4, 3, 2], [2, 2, 1, 0]),
}


@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_ctc(case, reduce, float_dtype, device):
    n_time, n_vocab, blank, t, il, ll = CASES[case]
    t = np.array(t, np.int32)
    n_batch = len(t)
    il_arr = None if il is None else np.array(il, np.int32)
    ll_arr = None if ll is None else np.array(ll, np.int32)

    def op(*xs):
        return F.connectionist_temporal_classification(
            list(xs), t, blank, il_arr, ll_arr, reduce=reduce
        )

    def ref(*xs):
        losses = _brute_force(
            xs,
            t,
            blank,
            [n_time] * n_batch if il is None else il,
            [t.shape[1]] * n_batch if ll is None else ll,
        )
        return np.asarray(losses.mean()) if reduce == "mean" else losses

    tol = {"forward": (2e-2, 2e-2)} if float_dtype == np.float16 else None
    # Chainer's CTC is not twice differentiable (the gradient is a constant).
    check_op(
        op,
        ref,
        [(n_batch, n_vocab)] * n_time,
        dtype=float_dtype,
        device=device,
        double_backward=False,
        tolerances=tol,
    )


def test_ctc_frames_after_input_length_get_no_gradient():
    xs = [
        Variable(np.random.default_rng(i).standard_normal((2, 3)).astype(np.float32))
        for i in range(3)
    ]
    loss = F.connectionist_temporal_classification(
        xs,
        np.array([[1], [2]], np.int32),
        0,
        input_length=np.array([3, 1], np.int32),
        label_length=np.array([1, 1], np.int32),
    )
    loss.backward()
    assert not xs[1].grad[1].any() and not xs[2].grad[1].any()
    assert xs[0].grad[1].any()
    # the gradient of each frame sums to zero over the vocabulary (softmax)
    np.testing.assert_allclose(xs[0].grad.sum(axis=1), 0, atol=1e-6)


def test_ctc_impossible_alignment_is_inf():
    xs = [np.zeros((1, 3), np.float32)]
    loss = F.connectionist_temporal_classification(xs, np.array([[1, 1]], np.int32), 0)
    assert np.isinf(loss.array)


def test_ctc_x_not_a_list():
    with pytest.raises(TypeError, match="list"):
        F.connectionist_temporal_classification(
            np.zeros((2, 1, 3), np.float32), np.zeros((1, 1), np.int32), 0
        )


def test_ctc_blank_symbol_not_int():
    with pytest.raises(TypeError, match="blank_symbol"):
        F.connectionist_temporal_classification(
            [np.zeros((1, 3), np.float32)], np.zeros((1, 1), np.int32), 0.5
        )


def test_ctc_blank_symbol_out_of_range():
    with pytest.raises(ValueError, match="blank_symbol"):
        F.connectionist_temporal_classification(
            [np.zeros((1, 3), np.float32)], np.zeros((1, 1), np.int32), 3
        )


def test_ctc_bad_reduce():
    with pytest.raises(ValueError, match="'mean' and 'no'"):
        F.connectionist_temporal_classification(
            [np.zeros((1, 3), np.float32)], np.zeros((1, 1), np.int32), 0, reduce="sum"
        )


def test_ctc_bad_lengths():
    xs = [np.zeros((1, 3), np.float32)] * 2
    t = np.ones((1, 1), np.int32)
    with pytest.raises(ValueError, match="input_length"):
        F.connectionist_temporal_classification(xs, t, 0, np.array([3], np.int32))
    with pytest.raises(ValueError, match="label_length"):
        F.connectionist_temporal_classification(xs, t, 0, None, np.array([2], np.int32))


def test_ctc_label_out_of_range():
    with pytest.raises(ValueError, match="labels"):
        F.connectionist_temporal_classification(
            [np.zeros((1, 3), np.float32)], np.array([[3]], np.int32), 0
        )
