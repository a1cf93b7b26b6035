import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4)])
def test_fliplr(shape, float_dtype, device):
    check_op(F.fliplr, np.fliplr, [shape], dtype=float_dtype, device=device)


def test_fliplr_needs_2d():
    with pytest.raises(type_check.InvalidType, match="a.ndim >= 2"):
        F.fliplr(np.zeros(3, np.float32))
