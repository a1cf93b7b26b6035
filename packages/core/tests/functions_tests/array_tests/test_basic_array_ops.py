"""reshape, transpose, broadcast_to/broadcast and get_item."""

from __future__ import annotations

import numpy as np
import pytest

import kusari.functions as F
from kusari import Variable
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "shape,new", [((2, 3), (3, 2)), ((2, 3), (-1,)), ((6,), (2, -1)), ((1,), ())]
)
def test_reshape(shape, new, float_dtype, device):
    check_op(
        lambda x: F.reshape(x, new),
        lambda x: x.reshape(new),
        [shape],
        dtype=float_dtype,
        device=device,
    )


def test_reshape_errors_and_view():
    with pytest.raises(type_check.InvalidType, match=r"reshaped to \(4,\)"):
        F.reshape(np.ones((2, 3), np.float32), (4,))
    a = np.ones((2, 3), np.float32)
    assert np.shares_memory(F.reshape(a, (6,)).array, a)


@pytest.mark.parametrize("axes", [None, (1, 0, 2), (2, 0, 1), (-1, 0, 1)])
def test_transpose(axes, float_dtype, device):
    check_op(
        lambda x: F.transpose(x, axes),
        lambda x: x.transpose(axes),
        [(2, 3, 4)],
        dtype=float_dtype,
        device=device,
    )


def test_transpose_bad_axes():
    with pytest.raises(type_check.InvalidType, match="permutation"):
        F.transpose(np.ones((2, 3), np.float32), (0, 0))


@pytest.mark.parametrize(
    "shape,target",
    [((3,), (2, 3)), ((2, 1), (2, 4)), ((), (2, 2)), ((1, 3), (4, 2, 3))],
)
def test_broadcast_to(shape, target, float_dtype, device):
    check_op(
        lambda x: F.broadcast_to(x, target),
        lambda x: np.broadcast_to(x, target),
        [shape],
        dtype=float_dtype,
        device=device,
    )


def test_broadcast_many(float_dtype):
    check_op(
        lambda a, b: F.broadcast(a, b),
        lambda a, b: np.broadcast_arrays(a, b),
        [(3, 1), (4,)],
        dtype=float_dtype,
    )
    with pytest.raises(type_check.InvalidType, match="broadcast"):
        F.broadcast(np.ones(2, np.float32), np.ones(3, np.float32))
    with pytest.raises(type_check.InvalidType, match=r"can be broadcast to \(3,\)"):
        F.broadcast_to(np.ones(2, np.float32), (3,))


@pytest.mark.parametrize(
    "index",
    [
        1,
        (slice(None), 2),
        (Ellipsis, 1),
        (None, 0),
        slice(0, 2),
        (slice(None, None, -1),),
        ([0, 0, 2],),
        (np.array([1, 0]), slice(1, 3)),
        (np.array([True, False, True]),),
    ],
)
def test_get_item(index, float_dtype, device):
    check_op(
        lambda x: x[index],
        lambda x: np.asarray(x[index]),
        [(3, 4)],
        dtype=float_dtype,
        device=device,
    )


def test_get_item_out_of_range():
    with pytest.raises(IndexError, match=r"get_item: .*input shape \(2,\)"):
        Variable(np.ones(2, np.float32))[5]


def test_reshape_to_the_same_shape_wraps_the_input_itself():
    a = np.zeros((2, 3))
    y = F.reshape(a, (2, 3))
    assert y.array is a and not y.requires_grad
    v = Variable(a)
    assert F.reshape(v, (2, 3)) is v


def test_broadcast_to_the_same_shape_returns_the_input_itself():
    a = np.zeros((2, 3), np.float32)
    y = F.broadcast_to(a, (2, 3))
    assert y.array is a and not y.requires_grad
    v = Variable(a)
    assert F.broadcast_to(v, (2, 3)) is v


def test_broadcast_of_one_input_is_that_input():
    v = Variable(np.zeros((2, 3), np.float32))
    assert F.broadcast(v) is v
    a = np.zeros(3, np.float32)
    assert F.broadcast(a).array is a


def test_broadcast_with_no_inputs_is_a_type_error_of_chainer_kind():
    with pytest.raises(type_check.InvalidType, match="Broadcast"):
        F.broadcast()


@pytest.mark.parametrize(
    "index,expected",
    [
        # A list of ints is one index array, as in NumPy.
        ([2, 0], lambda x: x[np.array([2, 0])]),
        ([], lambda x: x[np.array([], np.intp)]),
        # Any other list stands for the tuple of its items (Chainer's rule).
        ([slice(None), 1], lambda x: x[:, 1]),
        ([[1, 0], [2, 3]], lambda x: x[[1, 0], [2, 3]]),
    ],
)
def test_get_item_list_index(index, expected):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(F.get_item(x, index).array, expected(x))


def test_get_item_two_ellipses_is_a_value_error():
    with pytest.raises(ValueError, match="get_item: only one Ellipsis"):
        F.get_item(np.zeros((2, 3), np.float32), (Ellipsis, 0, Ellipsis))
