import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _domain(rng, dtype):
    return rng.uniform(-0.5, 1, (3, 2)).astype(dtype)


def test_log1p(float_dtype, device):
    check_op(F.log1p, np.log1p, [_domain], dtype=float_dtype, device=device)


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match="log1p"):
        F.log1p(np.zeros(3, np.int32))
