from __future__ import annotations

import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op


@pytest.mark.parametrize(
    "axis,keepdims",
    [
        (None, False),
        (None, True),
        (0, False),
        (1, True),
        (-1, False),
        ((0, 2), False),
        ((0, 2), True),
    ],
)
def test_sum(axis, keepdims, float_dtype, device):
    check_op(
        lambda x: F.sum(x, axis=axis, keepdims=keepdims),
        lambda x: np.asarray(x.sum(axis=axis, keepdims=keepdims)),
        [(2, 3, 4)],
        dtype=float_dtype,
        device=device,
    )


def test_sum_bad_axis():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        F.sum(x, axis=2)
    with pytest.raises(TypeError, match="axis must be None, an int or a tuple"):
        F.sum(x, axis=[0])
    with pytest.raises(ValueError, match="duplicate"):
        F.sum(x, axis=(0, -2))


@pytest.mark.parametrize(
    "shape,target",
    [
        ((2, 3), (1, 3)),
        ((2, 3), (3,)),
        ((4, 2, 3), (2, 1)),
        ((2, 3), ()),
    ],
)
def test_sum_to(shape, target, float_dtype, device):
    def ref(x):
        from kusari.utils import sum_to

        return np.asarray(sum_to(x, target))

    check_op(
        lambda x: F.sum_to(x, target), ref, [shape], dtype=float_dtype, device=device
    )


def test_sum_to_bad_shape():
    from kusari.utils import type_check

    with pytest.raises(type_check.InvalidType, match=r"can be summed to \(4,\)"):
        F.sum_to(np.ones((2, 3), np.float32), (4,))
