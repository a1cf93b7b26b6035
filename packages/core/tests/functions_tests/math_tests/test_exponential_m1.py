import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize("shape", [(3, 2), ()])
def test_expm1(shape, float_dtype, device):
    check_op(F.expm1, np.expm1, [shape], dtype=float_dtype, device=device)


def test_expm1_is_accurate_near_zero():
    assert F.expm1(np.array([1e-10])).array[0] == pytest.approx(1e-10, rel=1e-6)


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match="expm1"):
        F.expm1(np.zeros(3, np.int32))
