import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _inside(rng, dtype):
    return rng.uniform(-0.7, 0.7, (3, 2)).astype(dtype)


def test_arctanh(float_dtype, device):
    check_op(F.arctanh, np.arctanh, [_inside], dtype=float_dtype, device=device)


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match="arctanh"):
        F.arctanh(np.zeros(3, np.int32))
