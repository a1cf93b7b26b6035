import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _crelu(x, axis):
    return np.concatenate((np.maximum(x, 0), np.maximum(-x, 0)), axis=axis)


@pytest.mark.parametrize("axis", [1, 0, -1])
def test_crelu(axis, float_dtype, device):
    check_op(
        lambda x: F.crelu(x, axis),
        lambda x: _crelu(x, axis),
        [(2, 3, 2)],
        dtype=float_dtype,
        device=device,
        dodge_nondifferentiable=True,
    )


def test_crelu_bad_axis():
    with pytest.raises(type_check.InvalidType, match="ndim"):
        F.crelu(np.zeros((2,), np.float32), axis=1)


def test_crelu_int_input():
    with pytest.raises(type_check.InvalidType):
        F.crelu(np.zeros((2, 2), np.int32))
