import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "shapes", [[(2,), (3,)], [(2, 3), (2, 1)], [(2, 3, 4), (2, 1, 4)], [(), ()]]
)
def test_hstack(shapes, float_dtype, device):
    check_op(
        lambda *xs: F.hstack(xs),
        lambda *xs: np.hstack(xs),
        shapes,
        dtype=float_dtype,
        device=device,
    )


def test_hstack_errors():
    with pytest.raises(type_check.InvalidType, match="Concat"):
        F.hstack([np.zeros((2, 3), np.float32), np.zeros((3, 3), np.float32)])
    with pytest.raises(type_check.InvalidType, match="Hstack"):
        F.hstack([])
    with pytest.raises(type_check.InvalidType, match="Hstack"):
        F.hstack([np.zeros(2, np.float32), np.zeros((3, 3), np.float32)])
