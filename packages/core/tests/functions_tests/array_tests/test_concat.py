import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "shapes,axis",
    [
        ([(2, 3), (2, 4)], 1),
        ([(2, 3), (1, 3), (3, 3)], 0),
        ([(2, 3, 1), (2, 3, 2)], -1),
        ([(4,)], 0),
        ([(2, 0), (2, 3)], 1),
    ],
)
def test_concat(shapes, axis, float_dtype, device):
    check_op(
        lambda *xs: F.concat(xs, axis),
        lambda *xs: np.concatenate(xs, axis),
        shapes,
        dtype=float_dtype,
        device=device,
    )


def test_concat_default_axis_is_1():
    y = F.concat([np.zeros((2, 1), np.float32), np.zeros((2, 2), np.float32)])
    assert y.shape == (2, 3)


def test_concat_errors():
    a = np.zeros((2, 3), np.float32)
    with pytest.raises(type_check.InvalidType, match="Concat"):
        F.concat([a, np.zeros((3, 3), np.float32)], 1)
    with pytest.raises(type_check.InvalidType, match="dtype"):
        F.concat([a, np.zeros((2, 3), np.float64)], 1)
    with pytest.raises(type_check.InvalidType, match="ndim"):
        F.concat([a, np.zeros((2, 3, 1), np.float32)], 1)
    with pytest.raises(type_check.InvalidType):
        F.concat([a, a], 2)
    with pytest.raises(type_check.InvalidType):
        F.concat([], 0)
