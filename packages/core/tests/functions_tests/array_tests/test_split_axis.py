import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "shape,ios,axis",
    [
        ((2, 6), 3, 1),
        ((6, 2), [1, 4], 0),
        ((2, 3, 4), [2], -1),
        ((4, 3), [0, 2, 2], 0),
        ((4, 3), [-1], 0),
        ((4, 3), 1, 0),
        ((4, 3), [3, 1], 0),
    ],
)
def test_split_axis(shape, ios, axis, float_dtype, device):
    check_op(
        lambda x: F.split_axis(x, ios, axis),
        lambda x: tuple(np.split(x, ios, axis)),
        [shape],
        dtype=float_dtype,
        device=device,
    )


def test_split_axis_views_and_force_tuple():
    x = np.zeros((4, 3), np.float32)
    ys = F.split_axis(x, 2, 0)
    assert isinstance(ys, tuple) and all(np.shares_memory(y.array, x) for y in ys)
    assert isinstance(F.split_axis(x, 1, 0, force_tuple=False), kusari.Variable)
    assert isinstance(F.split_axis(x, 1, 0), tuple)
    assert isinstance(F.split_axis(x, [2], 0, force_tuple=False), tuple)


def test_split_axis_unused_output_gets_zero_grad():
    x = kusari.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
    a, b = F.split_axis(x, [1], 1)
    F.sum(b).backward()
    np.testing.assert_array_equal(x.grad, [[0, 1, 1], [0, 1, 1]])


def test_split_axis_errors():
    x = np.zeros((4, 3), np.float32)
    with pytest.raises(type_check.InvalidType, match="SplitAxis"):
        F.split_axis(x, 2, 1)
    with pytest.raises(type_check.InvalidType):
        F.split_axis(x, 2, 2)
    with pytest.raises(ValueError, match="positive"):
        F.split_axis(x, 0, 0)
    with pytest.raises(TypeError, match="indices_or_sections"):
        F.split_axis(x, 1.5, 0)


def test_split_axis_argument_errors_use_chainers_words():
    x = np.zeros((4, 6), np.float32)
    with pytest.raises(TypeError, match=r"must be integer or 1-D array\.\nActual"):
        F.split_axis(x, 1.5, 1)
    with pytest.raises(TypeError, match="indices_or_sections must be integers"):
        F.split_axis(x, [1.5], 1)
    with pytest.raises(TypeError, match="indices_or_sections must be integers"):
        F.split_axis(x, np.array([2.0]), 1)
    with pytest.raises(TypeError, match="must be 1-D sequence"):
        F.split_axis(x, np.array([[2]]), 1)


def test_split_axis_accepts_numpy_indices_and_sections():
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    a, b = F.split_axis(x, np.array(2), 1)
    np.testing.assert_array_equal(a.array, x[:, :3])
    parts = F.split_axis(x, np.array([1, 4]), 1)
    assert [p.shape for p in parts] == [(2, 1), (2, 3), (2, 2)]
    np.testing.assert_array_equal(parts[1].array, x[:, 1:4])


def test_unsorted_sections_raise_in_debug_mode():
    x = np.zeros((2, 3, 4), dtype=np.float32)
    with kusari.using_config("debug", True):
        with pytest.raises(ValueError, match="indices_or_sections must be sorted"):
            F.split_axis(x, [2, 1], 1)
        # Sorted (repeated) points are fine.
        assert [y.shape for y in F.split_axis(x, [1, 1], 1)] == [
            (2, 1, 4),
            (2, 0, 4),
            (2, 2, 4),
        ]
