import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize("beta", [1.0, 2.5])
def test_softplus(beta, float_dtype, device):
    check_op(
        lambda x: F.softplus(x, beta),
        lambda x: np.log1p(np.exp(beta * x)) / beta,
        [(3, 4)],
        dtype=float_dtype,
        device=device,
    )


def test_softplus_no_overflow():
    y = F.softplus(np.array([100.0, -100.0], np.float32))
    np.testing.assert_allclose(y.array, [100.0, 0.0], atol=1e-6)


def test_softplus_int_input():
    with pytest.raises(type_check.InvalidType):
        F.softplus(np.zeros(2, np.int32))
