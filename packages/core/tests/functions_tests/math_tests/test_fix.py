import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari import backend


@pytest.mark.parametrize("shape", [(3, 2), ()])
def test_fix(shape, float_dtype, device):
    x = (np.random.default_rng(0).uniform(-3, 3, shape)).astype(float_dtype)
    x = np.asarray(x)
    dev = backend.get_device(device)
    y = F.fix(kusari.Variable(dev.send(x)))
    assert isinstance(y, kusari.Variable)
    assert y.dtype == float_dtype
    assert y.creator is None and not y.requires_grad
    np.testing.assert_array_equal(backend.CpuDevice().send(y.array), np.trunc(x))


def test_fix_of_array():
    np.testing.assert_array_equal(
        F.fix(np.array([-1.5, 0.0, 2.5])).array, np.trunc([-1.5, 0.0, 2.5])
    )


def test_fix_rejects_non_arrays():
    with pytest.raises(TypeError, match="fix"):
        F.fix([1.0, 2.0])
