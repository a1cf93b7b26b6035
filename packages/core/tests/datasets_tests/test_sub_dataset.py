import numpy as np
import pytest

from kusari.datasets import (
    ConcatenatedDataset,
    SubDataset,
    TransformDataset,
    get_cross_validation_datasets,
    get_cross_validation_datasets_random,
    split_dataset,
    split_dataset_n,
    split_dataset_n_random,
    split_dataset_random,
)


def test_sub_dataset_with_order():
    base = list(range(10, 20))
    order = list(reversed(range(10)))
    d = SubDataset(base, 2, 5, order)
    assert list(d) == [17, 16, 15]
    assert d[-1] == 15 and d[0:2] == [17, 16]
    with pytest.raises(IndexError, match="out of range"):
        d[3]


@pytest.mark.parametrize(
    "start,finish,order,match",
    [
        (-1, 2, None, "0 <= start"),
        (2, 1, None, "start"),
        (0, 11, None, "10"),
        (0, 2, [0, 1], "order has length 2"),
    ],
)
def test_sub_dataset_errors(start, finish, order, match):
    with pytest.raises(ValueError, match=match):
        SubDataset(list(range(10)), start, finish, order)


def test_split_dataset():
    a, b = split_dataset(list(range(5)), 2)
    assert list(a) == [0, 1] and list(b) == [2, 3, 4]
    a, b = split_dataset(list(range(5)), np.int64(0))
    assert len(a) == 0 and len(b) == 5
    with pytest.raises(TypeError, match="split_at must be an int"):
        split_dataset([1, 2], 1.5)
    with pytest.raises(ValueError, match=">= 0"):
        split_dataset([1, 2], -1)
    with pytest.raises(ValueError, match="exceeds"):
        split_dataset([1, 2], 3)


def test_split_dataset_random_is_seeded_permutation():
    a, b = split_dataset_random(list(range(10)), 3, seed=0)
    a2, b2 = split_dataset_random(list(range(10)), 3, seed=0)
    assert list(a) == list(a2) and len(a) == 3
    assert sorted(list(a) + list(b)) == list(range(10))


def test_split_dataset_n():
    parts = split_dataset_n(list(range(7)), 3)
    assert [list(p) for p in parts] == [[0, 1], [2, 3], [4, 5]]
    parts = split_dataset_n_random(list(range(6)), 3, seed=1)
    assert sorted(sum((list(p) for p in parts), [])) == list(range(6))
    with pytest.raises(ValueError, match="positive"):
        split_dataset_n([1], 0)


@pytest.mark.parametrize("n,folds", [(6, 3), (7, 3), (5, 5)])
def test_cross_validation(n, folds):
    splits = get_cross_validation_datasets(list(range(n)), folds)
    assert len(splits) == folds
    tests = [sorted(test) for _, test in splits]
    assert sorted(sum(tests, [])) == list(range(n))
    for train, test in splits:
        assert sorted(list(train) + list(test)) == list(range(n))


def test_cross_validation_random_and_old_keyword():
    splits = get_cross_validation_datasets_random(list(range(6)), n_fold=2, seed=0)
    assert len(splits) == 2
    with pytest.raises(TypeError, match="unexpected"):
        get_cross_validation_datasets([1, 2], 2, foo=1)
    with pytest.raises(ValueError, match="n_folds"):
        get_cross_validation_datasets([1, 2])


def test_transform_dataset():
    d = TransformDataset([1, 2, 3], lambda x: x * 2)
    assert d[1:] == [4, 6] and len(d) == 3
    with pytest.raises(TypeError, match="callable"):
        TransformDataset([1], 3)


def test_concatenated_dataset():
    d = ConcatenatedDataset([1, 2], [], np.array([3, 4]))
    assert len(d) == 4 and list(d) == [1, 2, 3, 4] and d[-1] == 4
    assert d[[3, 0]] == [4, 1]
    with pytest.raises(IndexError, match="out of range"):
        d[4]
