import numpy as np
import pytest

from kusari_cv.chainer_experimental.datasets.sliceable import (
    ConcatenatedDataset,
    GetterDataset,
    SliceableDataset,
    TransformDataset,
    TupleDataset,
)


class Recorder(GetterDataset):
    """Columns x = i, y = 2 i; records which getters ran."""

    def __init__(self, n, offset=0):
        super().__init__()
        self.n, self.offset, self.log = n, offset, []
        self.add_getter("x", self._x)
        self.add_getter("y", self._y)

    def __len__(self):
        return self.n

    def _x(self, i):
        self.log.append(("x", i))
        return i + self.offset

    def _y(self, i):
        self.log.append(("y", i))
        return 2 * (i + self.offset)


def test_tuple_dataset_mixes_sliceables_named_and_plain_columns():
    base = Recorder(3)
    d = TupleDataset(base, ("z", np.array([7, 8, 9])), [0.5, 1.5, 2.5])
    assert isinstance(d, SliceableDataset)
    assert d.keys == ("x", "y", "z", None)
    assert d[1] == (1, 2, 8, 1.5)
    base.log.clear()
    assert list(d.slice[:, ("z", "y")]) == [(7, 0), (8, 2), (9, 4)]
    assert base.log == [("y", 0), ("y", 1), ("y", 2)]  # never read x


def test_tuple_dataset_checks_lengths():
    with pytest.raises(ValueError, match="same length"):
        TupleDataset([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="at least one"):
        TupleDataset()


def test_concatenated_dataset_maps_indices_and_slices():
    a, b = Recorder(2), Recorder(3, offset=10)
    d = ConcatenatedDataset(a, b)
    assert len(d) == 5
    assert d.keys == ("x", "y")
    assert d[3] == (11, 22)
    a.log.clear()
    b.log.clear()
    assert list(d.slice[:, "y"]) == [0, 2, 20, 22, 24]
    assert a.log == [("y", 0), ("y", 1)]
    assert b.log == [("y", 0), ("y", 1), ("y", 2)]
    with pytest.raises(IndexError):
        d[5]


def test_concatenated_dataset_requires_equal_keys():
    other = TupleDataset(("x", [1]), ("w", [2]))
    with pytest.raises(ValueError, match="same keys"):
        ConcatenatedDataset(Recorder(1), other)


def test_transform_dataset_with_keys():
    base = Recorder(4)
    d = TransformDataset(
        base, ("sum", "diff"), lambda ex: (ex[0] + ex[1], ex[1] - ex[0])
    )
    assert d.keys == ("sum", "diff")
    assert d[2] == (6, 2)
    assert list(d.slice[1:3, "diff"]) == [1, 2]


def test_transform_dataset_infers_the_number_of_values():
    d = TransformDataset([1, 2, 3], lambda v: (v, v * v))
    assert d.keys == (None, None)
    assert d[2] == (3, 9)
    single = TransformDataset([1, 2, 3], lambda v: v * 10)
    assert single[1] == 20  # one value: not wrapped in a tuple
    counted = TransformDataset([1, 2], 2, lambda v: (v, -v))
    assert counted[1] == (2, -2)
