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
