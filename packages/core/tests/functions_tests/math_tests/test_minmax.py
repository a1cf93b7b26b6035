import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check

AXES = [None, 0, 1, -1, (0, 2)]


def _distinct(rng, dtype):  # well separated values: no ties, no kinks
    return rng.permutation(24).reshape(2, 3, 4).astype(dtype) / 4


@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("fn,ref", [(F.max, np.max), (F.min, np.min)])
def test_max_min(fn, ref, axis, keepdims, float_dtype, device):
    check_op(
        lambda x: fn(x, axis=axis, keepdims=keepdims),
        lambda x: ref(x, axis=axis, keepdims=keepdims),
        [_distinct],
        dtype=float_dtype,
        device=device,
    )


@pytest.mark.parametrize("fn", [F.max, F.min])
def test_max_min_0dim(fn, float_dtype, device):
    check_op(fn, lambda x: x, [()], dtype=float_dtype, device=device)


@pytest.mark.parametrize("axis", [None, 0, 2, -1])
@pytest.mark.parametrize("fn,ref", [(F.argmax, np.argmax), (F.argmin, np.argmin)])
def test_argmax_argmin(fn, ref, axis, float_dtype, device):
    check_op(
        lambda x: fn(x, axis=axis),
        lambda x: ref(x, axis=axis),
        [_distinct],
        dtype=float_dtype,
        device=device,
        backward=False,
        check_dtype=False,
    )
    y = fn(np.zeros((2, 3), float_dtype), axis=axis if axis != 2 else 1)
    assert y.dtype == np.int32


def test_argmax_has_no_gradient():
    x = kusari.Variable(np.array([1.0, 3.0, 2.0], np.float32))
    y = F.argmax(x)
    assert int(y.array) == 1
    assert F.argmin(x).array == 0


def test_ties_all_receive_gradient():
    x = kusari.Variable(np.array([1.0, 3.0, 3.0], np.float32))
    y = F.max(x)
    y.backward()
    np.testing.assert_array_equal(x.grad, [0, 1, 1])


@pytest.mark.parametrize("fn", [F.max, F.min])
def test_bad_axis(fn):
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match=fn.__name__):
        fn(x, axis=2)
    with pytest.raises(ValueError, match=fn.__name__):
        fn(x, axis=(0, 0))
    with pytest.raises(TypeError, match=fn.__name__):
        fn(x, axis=[0])


@pytest.mark.parametrize("fn", [F.argmax, F.argmin])
def test_argmax_bad_axis(fn):
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(type_check.InvalidType, match=fn.__name__):
        fn(x, axis=2)
    with pytest.raises(TypeError, match=fn.__name__):
        fn(x, axis=(0, 1))


def test_int_input():
    with pytest.raises(type_check.InvalidType, match="max"):
        F.max(np.zeros(3, np.int32))


def test_empty_input():
    with pytest.raises(ValueError, match="max"):
        F.max(np.zeros((0,), np.float32))


@pytest.mark.parametrize("cls", [F.math.minmax.Max, F.math.minmax.Min])
def test_selector_checks_axis_when_built(cls):
    # Chainer-style code builds the node itself (`Max(axis)`); a bad axis is
    # reported then, before any input is seen.
    name = cls.name
    with pytest.raises(TypeError, match=f"{name}: axis must be"):
        cls([0])
    with pytest.raises(TypeError, match=f"{name}: axis must be"):
        cls((1, "x"))
    with pytest.raises(ValueError, match=f"{name}: duplicate value in axis"):
        cls((0, 0))
    assert cls((0, -1)).axis == (0, -1)  # resolved against ndim in forward
