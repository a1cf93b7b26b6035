"""Chainer 7 details of tabular views: which rows and columns reach the
underlying datasets, and what comes back."""

import numpy as np
import pytest

from kusari.dataset import TabularDataset, tabular


class Logged(TabularDataset):
    """``n`` rows of columns x, y (arrays); records every get_examples call."""

    def __init__(self, n, base=0, keys=("x", "y"), mode=tuple):
        self.n, self.base, self._keys, self._mode = n, base, keys, mode
        self.calls = []

    def __len__(self):
        return self.n

    @property
    def keys(self):
        return self._keys

    @property
    def mode(self):
        return self._mode

    def get_examples(self, indices, key_indices):
        self.calls.append((indices, key_indices))
        cols = [
            np.arange(self.n) + self.base + 1000 * k for k in range(len(self._keys))
        ]
        if key_indices is not None:
            cols = [cols[k] for k in key_indices]
        if indices is not None:
            cols = [c[indices] for c in cols]
        return tuple(cols)


def _pair():
    a, b = Logged(10), Logged(5, base=100)
    return a, b, a.concat(b)


def test_concat_all_rows_asks_each_dataset_for_all_rows():
    a, b, c = _pair()
    x, _ = c.get_examples(None, None)
    assert a.calls == [(None, None)] and b.calls == [(None, None)]
    assert x == list(range(10)) + list(range(100, 105))


def test_concat_rows_reach_each_dataset_in_one_call_in_request_order():
    a, b, c = _pair()
    x, y = c.get_examples([3, 1, 12, 14, 13, 7], (0, 1))
    assert a.calls == [([3, 1, 7], (0, 1))]
    assert b.calls == [([2, 4, 3], (0, 1))]
    assert x == [3, 1, 102, 104, 103, 7] and y[2] == 1102


def test_concat_backward_slice_is_split_into_local_slices():
    a, b, c = _pair()
    x, _ = c.get_examples(slice(13, 6, -2), None)
    assert a.calls == [(slice(9, 6, -2), None)]
    assert b.calls == [(slice(3, None, -2), None)]
    assert x == [103, 101, 9, 7]
    a, b, c = _pair()
    assert c.get_examples(slice(2, 15, 4), None)[0] == [2, 6, 100, 104]
    assert a.calls == [(slice(2, 10, 4), None)] and b.calls == [(slice(0, 5, 4), None)]


def test_concat_rows_of_one_dataset_keep_its_arrays():
    a, b, c = _pair()
    x, _ = c.get_examples([4, 2], None)
    assert isinstance(x, np.ndarray) and x.tolist() == [4, 2] and b.calls == []
    a.calls.clear()
    x, _ = c.get_examples(slice(11, 13), None)
    assert isinstance(x, np.ndarray) and x.tolist() == [101, 102] and a.calls == []


def test_concat_no_rows_asks_nobody():
    a, b, c = _pair()
    assert c.get_examples([], None) == ([], [])
    assert c.get_examples(slice(3, 3), (1,)) == ([],)
    assert a.calls == [] and b.calls == []


def test_concat_row_out_of_range_is_an_index_error():
    _, _, c = _pair()
    assert c.get_examples([-1], None)[0].tolist() == [104]
    with pytest.raises(IndexError, match="concat: row 15 is out of range for 15"):
        c.get_examples([15], None)


def test_join_all_columns_asks_each_dataset_for_all_its_columns():
    a = Logged(4)
    b = Logged(4, keys=("z",), mode=None)
    j = a.join(b)
    assert j.mode is tuple and j.keys == ("x", "y", "z")
    cols = j.get_examples([1], None)
    assert a.calls == [([1], None)] and b.calls == [([1], None)]
    assert [c.tolist() for c in cols] == [[1], [1001], [1]]
    j.get_examples(None, (2, 0))
    assert b.calls[-1] == (None, (0,)) and a.calls[-1] == (None, (0,))


def test_slice_mixing_bools_and_ints_reads_bools_as_rows_0_and_1():
    t = Logged(10)
    assert t.slice[[False, 3, 9, True]].fetch()[0].tolist() == [0, 3, 9, 1]
    assert t.slice[[np.bool_(True), 2]].fetch()[0].tolist() == [1, 2]
    with pytest.raises(ValueError, match="3 booleans"):
        t.slice[[True, False, True]]


def test_slice_with_a_tuple_of_keys_gives_tuples_even_from_one_column():
    one = Logged(3, keys=("x",), mode=None)
    assert one.slice[:, ("x",)].mode is tuple
    assert one.slice[:, ("x",)][2] == (2,)
    assert one.slice[:, "x"].mode is None
    assert Logged(3, mode=dict).slice[:, ("y",)].mode is dict


def test_from_data_unnamed_columns_of_separate_calls_can_be_joined():
    a = tabular.from_data(np.arange(3))
    b = tabular.from_data([7, 8, 9])
    assert a.keys != b.keys
    assert a.join(b)[1] == (1, 8)
