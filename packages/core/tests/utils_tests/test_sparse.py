"""kusari.utils.sparse: to_coo padding and get_order."""

from __future__ import annotations

import numpy as np
import pytest

from kusari import utils
from kusari.utils.sparse import get_order, to_coo

DENSE = np.array([[0.0, 2.0, 0.0], [-1.0, 0.0, 3.0]], np.float32)


def test_to_coo_pads_a_single_matrix_to_ldnz():
    m = to_coo(DENSE, ldnz=6)
    assert m.data.shape == m.row.shape == m.col.shape == (6,)
    np.testing.assert_array_equal(m.row, [0, 1, 1, -1, -1, -1])
    np.testing.assert_array_equal(m.col, [1, 0, 2, -1, -1, -1])
    np.testing.assert_array_equal(m.to_dense(), DENSE)


def test_to_coo_without_ldnz_keeps_the_non_zeros_only():
    m = to_coo(DENSE)
    assert m.data.shape == (3,)
    np.testing.assert_array_equal(m.to_dense(), DENSE)


def test_to_coo_rejects_an_ldnz_below_the_non_zeros():
    with pytest.raises(ValueError, match=r"to_coo: ldnz \(2\).*non-zeros \(3\)"):
        to_coo(DENSE, ldnz=2)


def test_get_order_of_to_coo_output():
    m = to_coo(DENSE)
    assert get_order(m.row, m.col) == "C"
    assert get_order(m.col, m.row) == "F"
    assert utils.get_order is get_order


@pytest.mark.parametrize(
    "row,col,order",
    [
        ([0, 0, 1, 2], [0, 3, 1, 0], "C"),
        ([1, 0, 2, 0], [0, 1, 1, 2], "F"),
        ([0, 2, 1], [1, 0, 2], "other"),
        ([0, 0, 1, 1, 2], [0, 1, 1, 2, 2], "C"),  # sorted both ways: C first
        ([3], [1], "C"),
        ([0, 1, -1, -1], [2, 0, -1, -1], "C"),  # padding is ignored
    ],
)
def test_get_order(row, col, order):
    assert get_order(np.array(row, np.int32), np.array(col, np.int32)) == order


def test_get_order_of_a_batch_needs_every_matrix():
    row = np.array([[0, 1], [1, 0]], np.int32)
    col = np.array([[1, 0], [0, 1]], np.int32)
    # The first matrix is in C order only, the second in F order only.
    assert get_order(row, col) == "other"
    assert get_order(row[:1], col[:1]) == "C"
    assert get_order(row[1:], col[1:]) == "F"


def test_get_order_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match="get_order: row and col must have the same"):
        get_order(np.zeros(3, np.int32), np.zeros(4, np.int32))


def test_get_order_rejects_one_sided_padding():
    with pytest.raises(ValueError, match="get_order: an entry has a negative"):
        get_order(np.array([0, -1], np.int32), np.array([1, 2], np.int32))
