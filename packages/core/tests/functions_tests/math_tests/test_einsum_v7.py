"""Chainer v7 behaviours of einsum: the sublist form, no broadcasting over
'...', and the DiagEinSum node (diagonal / broadcast outputs)."""

import numpy as np
import pytest

import kusari.functions as F
from kusari import gradient_check
from kusari.functions.math.einsum import DiagEinSum
from kusari.utils import type_check

_rng = np.random.default_rng(5)


def _u(*shape):
    return _rng.uniform(-1, 1, shape)


@pytest.mark.parametrize(
    "args,subscripts",
    [
        (("A", [0, 1], "B", [1, 2], [0, 2]), "ij,jk->ik"),
        (("A", [0, 1], "B", [1, 2]), "ij,jk"),
        (("A", [Ellipsis, 1], "B", [1, 2], [Ellipsis, 2]), "...j,jk->...k"),
        (("C", [0, 0]), "ii"),
        (("A", [np.int64(1), 0], [0, 1]), "ji->ij"),
    ],
)
def test_sublist_form_matches_the_string_form(args, subscripts):
    arrays = {"A": _u(2, 3), "B": _u(3, 4), "C": _u(3, 3)}
    real = tuple(arrays[a] if isinstance(a, str) else a for a in args)
    ops = [x for x in real if isinstance(x, np.ndarray)]
    y = F.einsum(*real)
    np.testing.assert_allclose(y.array, np.einsum(subscripts, *ops), rtol=1e-12)
    np.testing.assert_allclose(y.array, np.einsum(*real), rtol=1e-12)


def test_sublist_form_has_gradients():
    a, b = _u(2, 3), _u(3, 4)
    gradient_check.check_backward(
        lambda x, y: F.einsum(x, [0, 1], y, [1, 2], [0, 2]), (a, b), _u(2, 4)
    )


def test_sublist_errors_name_einsum():
    a = _u(2, 3)
    with pytest.raises(ValueError, match="einsum: subscript 52"):
        F.einsum(a, [0, 52])
    with pytest.raises(TypeError, match="einsum: sublist 0 holds"):
        F.einsum(a, [0, "j"])
    with pytest.raises(TypeError, match="einsum: sublist 0 must be a list"):
        F.einsum(a, 3)


@pytest.mark.parametrize("shapes", [((2,), (1, 2)), ((2, 2), (3, 2, 2))])
def test_ellipsis_does_not_broadcast(shapes):
    xs = [np.zeros(s, np.float32) for s in shapes]
    with pytest.raises(type_check.InvalidType, match="einsum: '...' covers"):
        F.einsum("...i,...i", *xs)


def test_ellipsis_only_in_output_is_a_value_error():
    x = np.zeros(2, np.float32)
    with pytest.raises(ValueError, match="einsum: output"):
        F.einsum("i,i->...", x, x)


def test_diag_einsum_diagonal_and_broadcast():
    x = np.array([1.0, 2.0])
    y = DiagEinSum(in_subs="i", out_sub="ii", out_shape=(2, 2)).apply((x,))[0]
    np.testing.assert_array_equal(y.array, np.diag(x))
    s, v = np.array(3.0), np.array([1.0, 2.0])
    y = DiagEinSum(",i", "ij", (2, 3)).apply((s, v))[0]
    np.testing.assert_array_equal(y.array, np.broadcast_to((3 * v)[:, None], (2, 3)))


@pytest.mark.parametrize(
    "in_subs,out_sub,in_shapes,out_shape",
    [
        ("i", "ij", [(3,)], (3, 4)),
        ("", "i", [()], (3,)),
        ("i", "ii", [(3,)], (3, 3)),
        ("ij,j", "iij", [(2, 3), (3,)], (2, 2, 3)),
    ],
)
def test_diag_einsum_gradients(in_subs, out_sub, in_shapes, out_shape):
    xs = tuple(_u(*s) for s in in_shapes)
    node = DiagEinSum(in_subs, out_sub, out_shape)

    def op(*args):
        return node.apply(args)[0]

    gy = _u(*out_shape)
    gradient_check.check_backward(op, xs, gy)
    gradient_check.check_double_backward(
        lambda *a: op(*a) * op(*a), xs, gy, tuple(_u(*s) for s in in_shapes)
    )


def test_diag_einsum_bad_arguments():
    with pytest.raises(ValueError, match="DiagEinSum: subscripts are letters"):
        DiagEinSum("i.", "i", (2,))
    with pytest.raises(ValueError, match="DiagEinSum: out_shape"):
        DiagEinSum("i", "ij", (2,))
    with pytest.raises(ValueError, match="DiagEinSum: 'i,j' names 2"):
        DiagEinSum("i,j", "ij", (2, 2)).apply((np.zeros(2),))
