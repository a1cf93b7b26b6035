import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "shape,axis",
    [
        ((3, 4), None),
        ((3, 4), 0),
        ((2, 3, 4), 1),
        ((2, 3, 4), -1),
        ((5,), 0),
        ((), None),
    ],
)
def test_cumsum(shape, axis, float_dtype, device):
    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    check_op(
        lambda x: F.cumsum(x, axis=axis),
        lambda x: np.cumsum(x, axis=axis),
        [shape],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_bad_axis():
    with pytest.raises(ValueError, match="cumsum"):
        F.cumsum(np.ones((2, 3), np.float32), axis=2)
    with pytest.raises(TypeError, match="cumsum"):
        F.cumsum(np.ones((2, 3), np.float32), axis=(0, 1))


def test_int_input():
    with pytest.raises(type_check.InvalidType, match="cumsum"):
        F.cumsum(np.ones(3, np.int32), axis=0)


@pytest.mark.parametrize("fn", [F.cumsum, F.cumprod])
@pytest.mark.parametrize("axis", [3, -4])
def test_axis_out_of_bounds_is_invalid_type_and_value_error(fn, axis):
    # Chainer reported it from the type check; kusari code catches ValueError.
    x = np.ones((2, 3, 4), np.float32)
    with pytest.raises(type_check.InvalidType, match="out of bounds") as info:
        fn(x, axis)
    assert isinstance(info.value, ValueError)
    assert info.value.expect == "-3 <= axis < 3"
    assert info.value.actual == f"axis = {axis}"
