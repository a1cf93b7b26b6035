import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _positive(rng, dtype):
    return rng.uniform(0.5, 2, (3, 2)).astype(dtype)


def test_sqrt(float_dtype, device):
    check_op(F.sqrt, np.sqrt, [_positive], dtype=float_dtype, device=device)


def test_rsqrt(float_dtype, device):
    check_op(
        F.rsqrt, lambda x: 1 / np.sqrt(x), [_positive], dtype=float_dtype, device=device
    )


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match="sqrt"):
        F.sqrt(np.zeros(3, np.int32))
