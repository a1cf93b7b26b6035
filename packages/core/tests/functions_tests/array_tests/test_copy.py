import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op


@pytest.mark.parametrize("dst", [-1, "@numpy"])
def test_copy(dst, float_dtype):
    # CPU to CPU only: check_op feeds output gradients on the input's device,
    # which a cross-device copy does not return to (see the GPU tests below).
    check_op(
        lambda x: F.copy(x, dst),
        lambda x: x.copy(),
        [(3, 4)],
        dtype=float_dtype,
    )


def test_copy_is_not_view():
    x = np.zeros(3, np.float32)
    assert not np.shares_memory(F.copy(x, -1).array, x)


@pytest.mark.gpu
@pytest.mark.skipif(not kusari.backends.cuda.available, reason="needs CuPy")
def test_copy_to_gpu_and_back():  # pragma: no cover - needs CuPy
    x = kusari.Variable(np.arange(3, dtype=np.float32))
    y = F.copy(x, 0)
    assert isinstance(y.array, kusari.backends.cuda.ndarray)
    F.sum(y).backward()
    assert isinstance(x.grad, np.ndarray)
    np.testing.assert_array_equal(x.grad, np.ones(3))


@pytest.mark.gpu
@pytest.mark.skipif(not kusari.backends.cuda.available, reason="needs CuPy")
def test_copy_gpu_to_cpu_sends_gradient_back():  # pragma: no cover - needs CuPy
    cp = kusari.backends.cuda.cupy
    x = kusari.Variable(cp.arange(3, dtype=cp.float32))
    y = F.copy(x, "@numpy")
    assert isinstance(y.array, np.ndarray)
    F.sum(y * y).backward()
    assert isinstance(x.grad, cp.ndarray)
    np.testing.assert_array_equal(x.grad.get(), 2 * np.arange(3))
