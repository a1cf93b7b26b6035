import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize("shape", [(3, 2), ()])
def test_square(shape, float_dtype, device):
    check_op(F.square, np.square, [shape], dtype=float_dtype, device=device)


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match="square"):
        F.square(np.zeros(3, np.int32))
