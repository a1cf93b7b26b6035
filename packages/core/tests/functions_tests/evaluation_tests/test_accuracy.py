import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari import backend
from kusari.utils import type_check


def _reference(y, t, ignore_label):
    pred = y.argmax(axis=1).reshape(t.shape)
    if ignore_label is None:
        return (pred == t).mean()
    valid = t != ignore_label
    return (pred == t)[valid].mean() if valid.any() else 0.0


@pytest.mark.parametrize(
    "y_shape,t_shape", [((10, 3), (10,)), ((4, 3, 5), (4, 5)), ((6, 3, 1, 1), (6,))]
)
@pytest.mark.parametrize("ignore_label", [None, 0])
def test_accuracy(y_shape, t_shape, ignore_label, float_dtype, device):
    rng = np.random.default_rng(0)
    y = rng.uniform(-1, 1, y_shape).astype(float_dtype)
    t = rng.integers(0, 3, t_shape).astype(np.int32)
    dev = backend.get_device(device)
    out = F.accuracy(dev.send(y), dev.send(t), ignore_label=ignore_label)
    assert isinstance(out, kusari.Variable)
    assert out.shape == () and out.dtype == float_dtype
    np.testing.assert_allclose(
        backend.CpuDevice().send(out.array), _reference(y, t, ignore_label), rtol=1e-3
    )


def test_accuracy_all_ignored():
    y = np.zeros((3, 2), np.float32)
    out = F.accuracy(y, np.full(3, -1, np.int32), ignore_label=-1)
    assert out.array == 0 and out.dtype == np.float32


def test_accuracy_is_not_differentiated():
    y = kusari.Variable(np.array([[0.1, 0.9]], np.float32))
    F.accuracy(y, np.array([1], np.int32)).backward()
    assert y.grad is None


def test_accuracy_bad_labels():
    with pytest.raises(type_check.InvalidType, match="t.dtype.kind"):
        F.accuracy(np.zeros((2, 3), np.float32), np.zeros(2, np.float32))
    with pytest.raises(type_check.InvalidType, match="shape"):
        F.accuracy(np.zeros((2, 3), np.float32), np.zeros(3, np.int32))
