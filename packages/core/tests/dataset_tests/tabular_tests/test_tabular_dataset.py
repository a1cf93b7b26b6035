import numpy as np
import pytest

from kusari.dataset import TabularDataset, tabular


class Table(TabularDataset):
    """4 rows; columns a (array), b (list), c (array) in a chosen mode."""

    def __init__(self, mode=tuple):
        self._mode = mode
        self.calls = []

    def __len__(self):
        return 4

    @property
    def keys(self):
        return ("a", "b", "c")

    @property
    def mode(self):
        return self._mode

    def get_examples(self, indices, key_indices):
        self.calls.append((indices, key_indices))
        cols = [np.arange(4), [10, 11, 12, 13], np.arange(4) * 100]
        if key_indices is not None:
            cols = [cols[k] for k in key_indices]
        if indices is not None:
            if isinstance(indices, slice):
                cols = [c[indices] for c in cols]
            else:
                cols = [
                    c[list(indices)]
                    if isinstance(c, np.ndarray)
                    else [c[i] for i in indices]
                    for c in cols
                ]
        return tuple(cols)


def test_basic_properties_and_modes():
    t = Table()
    assert len(t) == 4 and t.keys == ("a", "b", "c")
    assert t[1] == (1, 11, 100)
    assert t.as_dict()[1] == {"a": 1, "b": 11, "c": 100}
    assert t.asdict().as_tuple()[-1] == (3, 13, 300)
    assert [ex[1] for ex in t] == [10, 11, 12, 13]
    assert "keys=('a', 'b', 'c')" in repr(t) and "mode=tuple" in repr(t)
    with pytest.raises(IndexError, match="out of range"):
        t.get_example(4)


def test_fetch_and_convert():
    a, b, c = Table().fetch()
    assert b == [10, 11, 12, 13]
    d = Table(dict).fetch()
    assert set(d) == {"a", "b", "c"}
    converted = Table().convert(Table().fetch())
    assert all(isinstance(x, np.ndarray) for x in converted)
    assert isinstance(Table(dict).convert(d)["b"], np.ndarray)


@pytest.mark.parametrize(
    "rows,expected_a",
    [
        (slice(1, None), [1, 2, 3]),
        (slice(None, None, -1), [3, 2, 1, 0]),
        ([3, 0, -1], [3, 0, 3]),
        (np.array([2, 1]), [2, 1]),
        ([True, False, True, False], [0, 2]),
        ([], []),
    ],
)
def test_slice_rows(rows, expected_a):
    view = Table().slice[rows]
    assert len(view) == len(expected_a)
    assert list(view.fetch()[0]) == expected_a


def test_slice_keys_and_nested_slices():
    t = Table()
    v = t.slice[1:, ("c", 0)]
    assert v.keys == ("c", "a") and v.mode is tuple
    assert v[0] == (100, 1)
    single = t.slice[:, "b"]
    assert single.mode is None and single[2] == 12
    nested = t.slice[::-1].slice[1:3, [-1]]
    assert list(nested.fetch()[0]) == [200, 100]
    assert list(t.slice[[3, 1, 2]].slice[[2, 0]].fetch()[1]) == [12, 13]


@pytest.mark.parametrize(
    "args,error,match",
    [
        ((slice(None), ("z",)), KeyError, "no key 'z'"),
        ((slice(None), (5,)), IndexError, "key index 5"),
        (([4],), IndexError, "row index 4"),
        (([True],), ValueError, "1 booleans"),
        (([1.5],), ValueError, "not an integer"),
        (("x",), TypeError, "rows must be"),
    ],
)
def test_slice_errors(args, error, match):
    with pytest.raises(error, match=match):
        Table().slice[args if len(args) > 1 else args[0]]


def test_concat():
    t = Table()
    c = t.concat(t.slice[2:])
    assert len(c) == 6
    assert list(c.fetch()[0]) == [0, 1, 2, 3, 2, 3]
    assert list(c.slice[::-1].fetch()[1]) == [13, 12, 13, 12, 11, 10]
    # Rows from both datasets come back as lists (Chainer 7's contract).
    assert c.slice[[5, 0, 4]].fetch()[2] == [300, 0, 200]
    assert c[5] == (3, 13, 300)
    with pytest.raises(ValueError, match="same keys"):
        t.concat(t.slice[:, ("a",)])


def test_join():
    left = Table().slice[:, ("a",)]
    right = tabular.from_data(("d", [5, 6, 7, 8]))
    j = left.join(right)
    assert j.keys == ("a", "d") and j[3] == (3, 8)
    assert j.slice[:, ("d",)].fetch() == ([5, 6, 7, 8],)
    with pytest.raises(ValueError, match="duplicated key 'a'"):
        left.join(left)
    with pytest.raises(ValueError, match="same length"):
        left.join(tabular.from_data(("e", [1])))


def test_transform_modes():
    t = Table()
    tup = t.transform(("s", "p"), lambda a, b, c: (a + b, a * c))
    assert tup.mode is tuple and tup[2] == (14, 400)
    dic = t.as_dict().transform(("s",), lambda a, b, c: {"s": a - b})
    assert dic.mode is dict and dic[0] == {"s": -10}
    single = t.transform("s", lambda a, b, c: a)
    assert single.mode is None and single.fetch() == [0, 1, 2, 3]
    assert tup.slice[1:3, "p"].fetch() == [100, 400]


def test_transform_must_keep_return_type():
    t = Table().transform(("x",), lambda a, b, c: (a,) if a < 2 else a)
    with pytest.raises(ValueError, match="same type"):
        t.fetch()


def test_transform_batch():
    t = Table()
    tb = t.transform_batch(("s",), lambda a, b, c: (np.asarray(b) + a,))
    assert tb.mode is tuple and tb.fetch()[0].tolist() == [10, 12, 14, 16]
    assert tb.slice[[3]].fetch()[0].tolist() == [16]
    bad = t.transform_batch("s", lambda a, b, c: a[:1])
    with pytest.raises(ValueError, match="number of rows"):
        bad.fetch()


def test_with_converter():
    t = Table().with_converter(lambda a, b, c: (a.sum(), len(b)))
    assert t.convert(t.fetch()) == (6, 4)
    d = Table(dict).with_converter(lambda a, b, c: c.max())
    assert d.convert(d.fetch()) == 300
    with pytest.raises(TypeError, match="callable"):
        Table().with_converter(3)


def test_from_data_forms():
    assert tabular.from_data([4, 5, 6])[1] == 5
    arr = tabular.from_data(np.arange(3) * 2)
    assert arr.mode is None and arr.fetch().tolist() == [0, 2, 4]
    t = tabular.from_data(([1, 2], np.array([3, 4])))
    assert t.mode is tuple and t[1] == (2, 4)
    named = tabular.from_data((("a", [1, 2]), ("b", lambda i: i * 10)))
    assert named.keys == ("a", "b") and named[1] == (2, 10)
    d = tabular.from_data({"x": [1, 2], ("y", "z"): lambda i: (i, -i)})
    assert d.mode is dict and d[1] == {"x": 2, "y": 1, "z": -1}
    f = tabular.from_data(("sq", lambda i: i * i), size=5)
    assert f[4] == 16 and len(f) == 5


def test_from_data_errors():
    with pytest.raises(ValueError, match="size="):
        tabular.from_data(("a", lambda i: i))
    with pytest.raises(ValueError, match="key"):
        tabular.from_data((lambda i: i,), size=3)
    with pytest.raises(TypeError, match="from_data"):
        tabular.from_data(3)


def test_delegate_dataset():
    class Named(tabular.DelegateDataset):
        pass

    d = Named(Table())
    assert d.keys == ("a", "b", "c") and d[0] == (0, 10, 0) and len(d) == 4
    assert d.slice[1:, "a"].fetch().tolist() == [1, 2, 3]
    with pytest.raises(TypeError, match="TabularDataset"):
        tabular.DelegateDataset([1, 2])


def test_works_with_iterator_and_concat_examples():
    from kusari.dataset import concat_examples
    from kusari.iterators import SerialIterator

    it = SerialIterator(Table().as_dict(), 2, shuffle=False)
    batch = concat_examples(next(it))
    assert batch["b"].tolist() == [10, 11]
