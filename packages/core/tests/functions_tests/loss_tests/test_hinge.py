import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _ref(x, t, norm, reduce):
    s = -np.ones_like(x)
    s[np.arange(len(t)), t] = 1
    m = np.maximum(0, 1 - s * x)
    if norm == "L2":
        m = m**2
    return np.asarray(m.sum() / len(t)) if reduce == "mean" else m


def _labels(rng, dtype):
    return rng.integers(0, 3, 5).astype(np.int32)


@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("norm", ["L1", "L2"])
def test_hinge(norm, reduce, float_dtype, device):
    def x_gen(rng, dtype):
        x = rng.uniform(-2, 2, (5, 3))
        # keep away from the kink at margin 0 (|x| == 1)
        x = np.where(np.abs(np.abs(x) - 1) < 0.1, x * 0.7, x)
        return x.astype(dtype)

    check_op(
        lambda x, t: F.hinge(x, t, norm=norm, reduce=reduce),
        lambda x, t: _ref(x, t, norm, reduce),
        [x_gen, _labels],
        dtype=float_dtype,
        device=device,
    )


def test_hinge_bad_norm():
    with pytest.raises(NotImplementedError, match="L1"):
        F.hinge(np.zeros((2, 2), np.float32), np.zeros(2, np.int32), norm="L3")


def test_hinge_bad_reduce():
    with pytest.raises(ValueError, match="'mean' and 'no'"):
        F.hinge(np.zeros((2, 2), np.float32), np.zeros(2, np.int32), reduce="sum")


def test_hinge_bad_shapes():
    with pytest.raises(type_check.InvalidType, match="Hinge"):
        F.hinge(np.zeros((2, 2), np.float32), np.zeros(3, np.int32))
    with pytest.raises(type_check.InvalidType):
        F.hinge(np.zeros((2, 2), np.float32), np.zeros(2, np.float32))


def test_hinge_label_out_of_range():
    with pytest.raises(ValueError, match="labels"):
        F.hinge(np.zeros((2, 2), np.float32), np.array([0, 2], np.int32))
