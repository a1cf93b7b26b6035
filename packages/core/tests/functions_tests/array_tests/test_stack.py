import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "shape,n,axis",
    [
        ((3, 4), 2, 0),
        ((3, 4), 3, 1),
        ((3, 4), 2, 2),
        ((3, 4), 2, -1),
        ((3, 4), 2, -3),
        ((), 3, 0),
    ],
)
def test_stack(shape, n, axis, float_dtype, device):
    check_op(
        lambda *xs: F.stack(xs, axis),
        lambda *xs: np.stack(xs, axis),
        [shape] * n,
        dtype=float_dtype,
        device=device,
    )


def test_stack_errors():
    a = np.zeros((2, 3), np.float32)
    with pytest.raises(type_check.InvalidType, match="Stack"):
        F.stack([a, np.zeros((3, 2), np.float32)])
    with pytest.raises(type_check.InvalidType):
        F.stack([a, a.astype(np.float64)])
    with pytest.raises(type_check.InvalidType):
        F.stack([a, a], 3)
    with pytest.raises(type_check.InvalidType):
        F.stack([a, a], -4)
