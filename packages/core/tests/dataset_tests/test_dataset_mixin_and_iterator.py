import numpy as np
import pytest

from kusari.dataset import DatasetMixin, Iterator


class Squares(DatasetMixin):
    def __len__(self):
        return 5

    def get_example(self, i):
        if not -5 <= i < 5:
            raise IndexError(i)
        return (i % 5) ** 2


@pytest.mark.parametrize(
    "index,expected",
    [
        (2, 4),
        (-1, 16),
        (np.int64(3), 9),
        (slice(1, 4), [1, 4, 9]),
        (slice(None, None, -2), [16, 4, 0]),
        ([0, 4], [0, 16]),
        (np.array([1, 2]), [1, 4]),
        (np.array([True, False, False, False, True]), [0, 16]),
    ],
)
def test_getitem(index, expected):
    assert Squares()[index] == expected


def test_getitem_bad_type():
    with pytest.raises(TypeError, match=r"Squares.__getitem__.*str"):
        Squares()["a"]


def test_abstract_methods():
    with pytest.raises(NotImplementedError):
        len(DatasetMixin())
    with pytest.raises(NotImplementedError):
        DatasetMixin().get_example(0)


class Countdown(Iterator):
    def __init__(self, n):
        self.n = n
        self.finalized = False

    def __next__(self):
        if self.n == 0:
            raise StopIteration
        self.n -= 1
        return [self.n]

    def finalize(self):
        self.finalized = True


def test_iterator_protocol():
    it = Countdown(3)
    assert iter(it) is it
    assert it.next() == [2]
    with it:
        assert list(it) == [[1], [0]]
    assert it.finalized


def test_iterator_base_defaults():
    base = Iterator()
    with pytest.raises(NotImplementedError):
        next(base)
    base.serialize(None)
    base.finalize()
