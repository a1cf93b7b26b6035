import numpy as np
import pytest

import kusari.functions as F
from kusari import backend
from kusari.utils import type_check


@pytest.mark.parametrize("shape", [(10,), (4, 3)])
def test_binary_accuracy(shape, float_dtype, device):
    rng = np.random.default_rng(0)
    y = rng.uniform(-1, 1, shape).astype(float_dtype)
    t = rng.integers(-1, 2, shape).astype(np.int32)
    dev = backend.get_device(device)
    out = F.binary_accuracy(dev.send(y), dev.send(t))
    valid = t != -1
    expected = ((y >= 0) == (t == 1))[valid].mean()
    assert out.shape == () and out.dtype == float_dtype
    np.testing.assert_allclose(backend.CpuDevice().send(out.array), expected, rtol=1e-3)


def test_binary_accuracy_all_ignored():
    out = F.binary_accuracy(np.ones(3, np.float32), np.full(3, -1, np.int32))
    assert out.array == 0


def test_binary_accuracy_shape_mismatch():
    with pytest.raises(type_check.InvalidType, match="shape"):
        F.binary_accuracy(np.zeros(3, np.float32), np.zeros(4, np.int32))
