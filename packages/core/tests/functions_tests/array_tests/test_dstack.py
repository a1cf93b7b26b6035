import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "shapes",
    [
        [(3,), (3,)],
        [(2, 3), (2, 3)],
        [(2, 3, 4), (2, 3, 1)],
        [(), ()],
        [(2, 3, 1, 2), (2, 3, 2, 2)],
    ],
)
def test_dstack(shapes, float_dtype, device):
    check_op(
        lambda *xs: F.dstack(xs),
        lambda *xs: np.dstack(xs),
        shapes,
        dtype=float_dtype,
        device=device,
    )


def test_dstack_errors():
    with pytest.raises(type_check.InvalidType, match="Concat"):
        F.dstack([np.zeros((2, 3), np.float32), np.zeros((2, 2), np.float32)])
    with pytest.raises(type_check.InvalidType, match="Dstack"):
        F.dstack([])
