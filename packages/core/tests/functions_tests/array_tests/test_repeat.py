import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "shape,repeats,axis",
    [
        ((3,), 2, None),
        ((2, 3), 2, None),
        ((2, 3), 3, 1),
        ((2, 3), (1, 0, 2), 1),
        ((2, 3), (2, 1), 0),
        ((2, 3), [2], -1),
        ((2, 3), 0, 0),
        ((4,), (1, 2, 0, 3), None),
        ((), 3, None),
    ],
)
def test_repeat(shape, repeats, axis, float_dtype, device):
    reps = repeats if isinstance(repeats, int) else list(repeats)
    if isinstance(reps, list) and len(reps) == 1:
        reps = reps[0]
    check_op(
        lambda x: F.repeat(x, repeats, axis),
        lambda x: np.repeat(x, reps, axis),
        [shape],
        dtype=float_dtype,
        device=device,
    )


def test_repeat_errors():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="zero or larger"):
        F.repeat(x, -1)
    with pytest.raises(TypeError, match="repeats"):
        F.repeat(x, 1.5)
    with pytest.raises(type_check.InvalidType, match="Repeat"):
        F.repeat(x, (1, 2), axis=1)
    with pytest.raises(type_check.InvalidType):
        F.repeat(x, 2, axis=2)


@pytest.mark.parametrize(
    "repeats,axis", [(True, None), (False, 0), ((True,), 0), ((True, False, True), 1)]
)
def test_repeat_bool_counts(repeats, axis):
    # v7 and NumPy read True/False as 1/0 repeats.
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    reps = repeats[0] if isinstance(repeats, tuple) and len(repeats) == 1 else repeats
    expected = np.repeat(x, np.asarray(reps, dtype=np.int64), axis)
    np.testing.assert_array_equal(F.repeat(x, repeats, axis).array, expected)


def test_repeat_bool_axis_refused():
    with pytest.raises(TypeError, match="axis"):
        F.repeat(np.zeros(3, np.float32), 1, True)
