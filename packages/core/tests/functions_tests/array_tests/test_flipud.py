import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize("shape", [(3,), (3, 4), (2, 3, 4)])
def test_flipud(shape, float_dtype, device):
    check_op(F.flipud, np.flipud, [shape], dtype=float_dtype, device=device)


def test_flipud_needs_1d():
    with pytest.raises(type_check.InvalidType, match="a.ndim >= 1"):
        F.flipud(np.zeros((), np.float32))
