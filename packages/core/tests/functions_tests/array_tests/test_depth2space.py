import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _ref(r):
    def ref(x):
        n, c, h, w = x.shape
        oc = c // (r * r)
        y = np.empty((n, oc, h * r, w * r))
        for i in range(r):
            for j in range(r):
                y[:, :, i::r, j::r] = x[:, (i * r + j) * oc : (i * r + j + 1) * oc]
        return y

    return ref


@pytest.mark.parametrize(
    "shape,r", [((2, 8, 3, 2), 2), ((1, 9, 2, 2), 3), ((1, 3, 2, 1), 1)]
)
def test_depth2space(shape, r, float_dtype, device):
    check_op(
        lambda x: F.depth2space(x, r),
        _ref(r),
        [shape],
        dtype=float_dtype,
        device=device,
    )


def test_depth2space_errors():
    with pytest.raises(type_check.InvalidType, match="Depth2Space"):
        F.depth2space(np.zeros((1, 6, 2, 2), np.float32), 2)
    with pytest.raises(type_check.InvalidType):
        F.depth2space(np.zeros((4, 2, 2), np.float32), 2)
    with pytest.raises(ValueError, match="positive"):
        F.depth2space(np.zeros((1, 4, 2, 2), np.float32), 0)
