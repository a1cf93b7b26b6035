import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "src,dst", [(0, 2), (-1, 0), ((0, 1), (2, 0)), ((0, 2), (-1, -3)), (1, 1)]
)
def test_moveaxis(src, dst, float_dtype, device):
    check_op(
        lambda x: F.moveaxis(x, src, dst),
        lambda x: np.moveaxis(x, src, dst),
        [(2, 3, 4)],
        dtype=float_dtype,
        device=device,
    )


def test_moveaxis_is_view():
    x = np.zeros((2, 3, 4), np.float32)
    assert np.shares_memory(F.moveaxis(x, 0, 2).array, x)


def test_moveaxis_errors():
    x = np.zeros((2, 3, 4), np.float32)
    with pytest.raises(type_check.InvalidType, match="Moveaxis"):
        F.moveaxis(x, 3, 0)
    with pytest.raises(ValueError, match="repeated axis"):
        F.moveaxis(x, (0, -3), (1, 2))
    with pytest.raises(ValueError, match="same number"):
        F.moveaxis(x, (0, 1), 2)
    with pytest.raises(TypeError, match="moveaxis"):
        F.moveaxis(x, 0.5, 1)
