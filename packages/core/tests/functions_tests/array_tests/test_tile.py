import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op


@pytest.mark.parametrize(
    "shape,reps",
    [
        ((3,), 2),
        ((2, 3), (2, 1)),
        ((2, 3), (2, 1, 3)),
        ((2, 1, 3), (2, 2)),
        ((), 3),
        ((2, 3), 0),
    ],
)
def test_tile(shape, reps, float_dtype, device):
    check_op(
        lambda x: F.tile(x, reps),
        lambda x: np.tile(x, reps),
        [shape],
        dtype=float_dtype,
        device=device,
    )


def test_tile_errors():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="zero or larger"):
        F.tile(x, (1, -1))
    with pytest.raises(TypeError, match="reps"):
        F.tile(x, "2")
