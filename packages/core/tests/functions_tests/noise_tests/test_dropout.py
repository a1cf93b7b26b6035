import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _mask(shape, ratio, dtype, seed=0):
    flag = np.random.default_rng(seed).random(shape) >= ratio
    return (flag * (1.0 / (1 - ratio))).astype(dtype)


@pytest.mark.parametrize("shape,ratio", [((3, 4), 0.5), ((2, 3, 4), 0.2), ((5,), 0.0)])
def test_dropout_fixed_mask(shape, ratio, float_dtype, device):
    mask = kusari.get_device(device).send(_mask(shape, ratio, float_dtype))
    host = kusari.backends.cuda.to_cpu(mask)
    check_op(
        lambda x: F.dropout(x, ratio, mask=mask),
        lambda x: x * host,
        [shape],
        dtype=float_dtype,
        device=device,
    )


def test_dropout_statistics():
    np.random.seed(0)
    x = np.ones((200, 500), np.float32)
    y, mask = F.dropout(x, 0.3, return_mask=True)
    assert y.dtype == np.float32 and mask.dtype == np.float32
    dropped = (y.array == 0).mean()
    assert abs(dropped - 0.3) < 0.01
    kept = y.array[y.array != 0]
    np.testing.assert_allclose(kept, 1 / 0.7, rtol=1e-6)
    np.testing.assert_array_equal(y.array, x * mask)
    assert abs(y.array.mean() - 1) < 0.02


def test_dropout_default_ratio_is_half():
    np.random.seed(1)
    y = F.dropout(np.ones(10000, np.float32))
    assert abs((y.array == 0).mean() - 0.5) < 0.03
    assert set(np.unique(y.array)) == {0.0, 2.0}


def test_dropout_test_mode_is_identity():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    with kusari.using_config("train", False):
        y = F.dropout(x, 0.9)
        y2, mask = F.dropout(x, 0.9, return_mask=True)
    assert y.array is x
    assert mask is None and y2.array is x


def test_dropout_backward_uses_mask():
    x = kusari.Variable(np.ones((4, 5), np.float32))
    np.random.seed(2)
    y, mask = F.dropout(x, 0.4, return_mask=True)
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad, mask)


def test_dropout_errors():
    x = np.ones(3, np.float32)
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        F.dropout(x, 1.0)
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        F.dropout(x, -0.1)
    with pytest.raises(ValueError, match="using_config"):
        F.dropout(x, train=True)
    with pytest.raises(TypeError, match="unexpected"):
        F.dropout(x, foo=1)
    with pytest.raises(type_check.InvalidType, match="Dropout"):
        F.dropout(np.ones(3, np.int32))
    with pytest.raises(type_check.InvalidType, match="mask.shape"):
        F.dropout(x, mask=np.ones(4, np.float32))
