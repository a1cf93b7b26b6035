import numpy as np
import pytest

from kusari.datasets import DictDataset, TupleDataset


def test_tuple_dataset_indexing():
    d = TupleDataset(np.arange(4), ["a", "b", "c", "d"])
    assert len(d) == 4
    assert d[1] == (1, "b")
    assert d[1:3] == [(1, "b"), (2, "c")]
    assert d[[3, 0]] == [(3, "d"), (0, "a")]
    assert d[np.array([2])] == [(2, "c")]
    assert "len=4" in repr(d)


def test_tuple_dataset_errors():
    with pytest.raises(ValueError, match="no datasets"):
        TupleDataset()
    with pytest.raises(ValueError, match="dataset 1 has length 2, expected 3"):
        TupleDataset([1, 2, 3], [1, 2])


def test_dict_dataset():
    d = DictDataset(x=np.arange(3), y=[5, 6, 7])
    assert d[2] == {"x": 2, "y": 7}
    assert d[:2] == [{"x": 0, "y": 5}, {"x": 1, "y": 6}]
    assert d[[1]] == [{"x": 1, "y": 6}]
    assert len(d) == 3
    with pytest.raises(ValueError, match="'y' has length 1"):
        DictDataset(x=[1, 2], y=[1])
    with pytest.raises(ValueError, match="no datasets"):
        DictDataset()


def test_boolean_mask_index():
    mask = np.array([True, False, True])
    assert TupleDataset([1, 2, 3], np.arange(3))[mask] == [(1, 0), (3, 2)]
    assert DictDataset(a=[1, 2, 3])[mask] == [{"a": 1}, {"a": 3}]
