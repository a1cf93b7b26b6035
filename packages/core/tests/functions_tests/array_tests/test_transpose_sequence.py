import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _ref(*xs):
    n = len(xs[0]) if xs else 0
    return tuple(np.stack([x[t] for x in xs if len(x) > t]) for t in range(n))


@pytest.mark.parametrize(
    "shapes", [[(3,), (2,), (2,), (1,)], [(2, 3), (2, 3)], [(4, 2), (1, 2)], [(1,)]]
)
def test_transpose_sequence(shapes, float_dtype, device):
    check_op(
        lambda *xs: F.transpose_sequence(xs),
        _ref,
        shapes,
        dtype=float_dtype,
        device=device,
    )


def test_transpose_sequence_is_involution():
    xs = [np.arange(n, dtype=np.float32) + 10 * i for i, n in enumerate([4, 3, 1])]
    ys = F.transpose_sequence(xs)
    assert [y.shape for y in ys] == [(3,), (2,), (2,), (1,)]
    back = F.transpose_sequence(ys)
    for x, b in zip(xs, back, strict=True):
        np.testing.assert_array_equal(b.array, x)


def test_transpose_sequence_empty_and_partial_grad():
    assert F.transpose_sequence([]) == ()
    xs = [
        kusari.Variable(np.ones((2, 2), np.float32)),
        kusari.Variable(np.ones((1, 2), np.float32)),
    ]
    ys = F.transpose_sequence(xs)
    F.sum(ys[1]).backward()
    np.testing.assert_array_equal(xs[0].grad, [[0, 0], [1, 1]])
    np.testing.assert_array_equal(xs[1].grad, [[0, 0]])


def test_transpose_sequence_errors():
    with pytest.raises(type_check.InvalidType, match="TransposeSequence"):
        F.transpose_sequence([np.zeros(1, np.float32), np.zeros(2, np.float32)])
    with pytest.raises(type_check.InvalidType):
        F.transpose_sequence(
            [np.zeros((2, 1), np.float32), np.zeros((2, 2), np.float32)]
        )


def test_trailing_empty_sequences_get_gradients():
    # Length-0 sequences at the end have no time step, but backward still
    # returns one (empty) gradient per input, as in Chainer.
    xs = [
        kusari.Variable(np.arange(6, dtype=np.float64).reshape(2, 3)),
        kusari.Variable(np.ones((1, 3))),
        kusari.Variable(np.zeros((0, 3))),
    ]
    ys = F.transpose_sequence(xs)
    assert [y.shape for y in ys] == [(2, 3), (1, 3)]
    F.sum(ys[0] * 2.0).backward()
    np.testing.assert_array_equal(xs[0].grad, [[2, 2, 2], [0, 0, 0]])
    np.testing.assert_array_equal(xs[1].grad, [[2, 2, 2]])
    assert xs[2].grad.shape == (0, 3)


def test_only_empty_sequences_have_no_time_steps():
    assert F.transpose_sequence([np.zeros(0, np.float32)] * 2) == ()
    # An explicit output count pads with empty time steps.
    from kusari.functions.array.transpose_sequence import TransposeSequence

    ys = TransposeSequence(3).apply((np.ones(2, np.float32), np.ones(1, np.float32)))
    assert [y.shape for y in ys] == [(2,), (1,), (0,)]
