import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize("shape", [(3, 2), (2, 3, 2), (4, 1)])
def test_batch_l2_norm_squared(shape, float_dtype, device):
    check_op(
        F.batch_l2_norm_squared,
        lambda x: (x.reshape(len(x), -1) ** 2).sum(axis=1),
        [shape],
        dtype=float_dtype,
        device=device,
    )


def test_0dim_input():
    with pytest.raises(type_check.InvalidType, match="batch_l2_norm_squared"):
        F.batch_l2_norm_squared(np.zeros((), np.float32))


@pytest.mark.parametrize("shape", [(), (4,)])
def test_needs_a_feature_axis(shape):
    # Chainer v7 refuses a 1-d batch: there is no axis to take the norm over.
    with pytest.raises(type_check.InvalidType, match="batch_l2_norm_squared"):
        F.batch_l2_norm_squared(np.zeros(shape, np.float32))
