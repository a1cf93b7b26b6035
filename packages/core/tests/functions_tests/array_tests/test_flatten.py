import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (), (5,)])
def test_flatten(shape, float_dtype, device):
    check_op(
        F.flatten, lambda x: x.reshape(-1), [shape], dtype=float_dtype, device=device
    )


def test_flatten_is_view():
    x = np.zeros((2, 3), np.float32)
    assert np.shares_memory(F.flatten(x).array, x)
