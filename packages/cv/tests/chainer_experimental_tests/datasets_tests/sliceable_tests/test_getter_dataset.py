import numpy as np
import pytest

from kusari_cv.chainer_experimental.datasets.sliceable import GetterDataset


class CountingDataset(GetterDataset):
    """Columns img = 10 i, (a, b) = (i, -i), c = i * i; counts getter calls."""

    def __init__(self, n=5):
        super().__init__()
        self.n = n
        self.calls = {"img": 0, "ab": 0, "c": 0}
        self.add_getter("img", self._img)
        self.add_getter(("a", "b"), self._ab)
        self.add_getter("c", self._c)

    def __len__(self):
        return self.n

    def _img(self, i):
        self.calls["img"] += 1
        return 10 * i

    def _ab(self, i):
        self.calls["ab"] += 1
        return i, -i

    def _c(self, i):
        self.calls["c"] += 1
        return i * i


def test_examples_are_tuples_in_key_order():
    d = CountingDataset()
    assert d.keys == ("img", "a", "b", "c")
    assert d[3] == (30, 3, -3, 9)
    assert d[-1] == (40, 4, -4, 16)
    assert d[1:3] == [(10, 1, -1, 1), (20, 2, -2, 4)]
    assert list(d) == [d[i] for i in range(5)]
    # Each getter ran once per example, even though "ab" feeds two columns.
    d2 = CountingDataset()
    d2[2]
    assert d2.calls == {"img": 1, "ab": 1, "c": 1}


def test_slice_reads_only_the_requested_columns():
    d = CountingDataset()
    view = d.slice[:, ("b", "c")]
    assert view.keys == ("b", "c")
    assert list(view) == [(0, 0), (-1, 1), (-2, 4), (-3, 9), (-4, 16)]
    assert d.calls == {"img": 0, "ab": 5, "c": 5}


def test_slice_with_one_key_returns_bare_values():
    d = CountingDataset()
    view = d.slice[1:5:2, "a"]
    assert view.keys == "a"
    assert len(view) == 2
    assert list(view) == [1, 3]
    assert d.calls == {"img": 0, "ab": 2, "c": 0}


@pytest.mark.parametrize(
    ("index", "expected"),
    [
        (slice(None, None, -2), [4, 2, 0]),
        ([3, 0, -1], [3, 0, 4]),
        (np.array([1, 1]), [1, 1]),
        ([True, False, False, True, False], [0, 3]),
        (np.array([False] * 5), []),
    ],
)
def test_slice_index_kinds(index, expected):
    d = CountingDataset()
    assert list(d.slice[index, "a"]) == expected


def test_slice_keys_by_position_and_nested_slices():
    d = CountingDataset()
    view = d.slice[[4, 2, 1], (3, "img")]
    assert view[0] == (16, 40)
    nested = view.slice[1:, "c"]
    assert list(nested) == [4, 1]
    assert d.calls["ab"] == 0


def test_keys_setter_selects_and_reorders_columns():
    d = CountingDataset()
    d.keys = ("c", "img")
    assert d.keys == ("c", "img")
    assert d[2] == (4, 20)
    assert d.calls["ab"] == 0
    d.keys = "b"
    assert d[2] == -2
    assert list(d.slice[:2]) == [0, -1]


def test_int_keys_register_unnamed_columns():
    class D(GetterDataset):
        def __init__(self):
            super().__init__()
            self.add_getter(2, lambda i: (i, i + 1))
            self.add_getter(1, lambda i: "x")

        def __len__(self):
            return 3

    d = D()
    assert d.keys == (None, None, None)
    assert d[1] == (1, 2, "x")
    assert list(d.slice[:, 1]) == [1, 2, 3]


def test_errors_name_the_problem():
    d = CountingDataset()
    with pytest.raises(KeyError, match="no key named 'z'"):
        d.slice[:, "z"]
    with pytest.raises(IndexError, match="key index 7"):
        d.slice[:, 7]
    with pytest.raises(IndexError, match="index 5 is out of range"):
        d[5]
    with pytest.raises(IndexError, match="index 9 is out of range"):
        d.slice[[9]]
    with pytest.raises(IndexError, match="boolean mask"):
        d.slice[[True, False]]
    with pytest.raises(KeyError, match="no key named 'nope'"):
        d.keys = ("img", "nope")


def test_getter_returning_the_wrong_width_is_reported():
    class Bad(GetterDataset):
        def __init__(self):
            super().__init__()
            self.add_getter(("a", "b"), lambda i: (1, 2, 3))

        def __len__(self):
            return 1

    with pytest.raises(ValueError, match="tuple of 2 values"):
        Bad()[0]
