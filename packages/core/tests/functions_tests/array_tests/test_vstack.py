import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "shapes", [[(3,), (3,)], [(2, 3), (1, 3)], [(2, 3, 4), (1, 3, 4)], [(), ()]]
)
def test_vstack(shapes, float_dtype, device):
    check_op(
        lambda *xs: F.vstack(xs),
        lambda *xs: np.vstack(xs),
        shapes,
        dtype=float_dtype,
        device=device,
    )


def test_vstack_errors():
    with pytest.raises(type_check.InvalidType, match="Concat"):
        F.vstack([np.zeros((2, 3), np.float32), np.zeros((2, 2), np.float32)])
    with pytest.raises(type_check.InvalidType, match="Vstack"):
        F.vstack([])
