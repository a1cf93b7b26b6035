import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _ref(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    return (
        np.squeeze(np.log(np.exp(x - m).sum(axis=axis, keepdims=True)) + m, axis=axis)
        if axis is not None
        else np.log(np.exp(x - m).sum()) + m.reshape(())
    )


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
def test_logsumexp(axis, float_dtype, device):
    check_op(
        lambda x: F.logsumexp(x, axis=axis),
        lambda x: _ref(x, axis),
        [(2, 3, 2)],
        dtype=float_dtype,
        device=device,
    )


def test_large_values_are_stable():
    x = np.array([1000.0, 1000.0], np.float32)
    assert float(F.logsumexp(x).array) == pytest.approx(1000 + np.log(2))


def test_bad_axis():
    with pytest.raises(ValueError, match="logsumexp"):
        F.logsumexp(np.ones((2, 3), np.float32), axis=(1, 1))


def test_int_input():
    with pytest.raises(type_check.InvalidType, match="logsumexp"):
        F.logsumexp(np.ones(3, np.int32))
