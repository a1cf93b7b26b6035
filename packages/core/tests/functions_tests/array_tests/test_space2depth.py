import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _ref(r):
    def ref(x):
        n, c, h, w = x.shape
        y = np.empty((n, c * r * r, h // r, w // r))
        for i in range(r):
            for j in range(r):
                y[:, (i * r + j) * c : (i * r + j + 1) * c] = x[:, :, i::r, j::r]
        return y

    return ref


@pytest.mark.parametrize(
    "shape,r", [((2, 2, 4, 6), 2), ((1, 1, 3, 3), 3), ((1, 2, 2, 1), 1)]
)
def test_space2depth(shape, r, float_dtype, device):
    check_op(
        lambda x: F.space2depth(x, r),
        _ref(r),
        [shape],
        dtype=float_dtype,
        device=device,
    )


def test_space2depth_inverts_depth2space():
    x = np.random.default_rng(0).random((2, 12, 3, 2)).astype(np.float32)
    np.testing.assert_array_equal(F.space2depth(F.depth2space(x, 2), 2).array, x)


def test_space2depth_errors():
    with pytest.raises(type_check.InvalidType, match="Space2Depth"):
        F.space2depth(np.zeros((1, 2, 3, 4), np.float32), 2)
    with pytest.raises(type_check.InvalidType, match="dtype"):
        F.space2depth(np.zeros((1, 2, 4, 4), np.int32), 2)
