import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op


@pytest.mark.parametrize("to", [np.float16, np.float32, np.float64])
def test_cast(to, float_dtype, device):
    tol = {"forward": (5e-3, 5e-3)} if np.float16 in (to, float_dtype) else None
    # The output dtype is fixed by ``to``, which check_op's float64 numerical
    # gradient cannot follow; gradients are checked below instead.
    check_op(
        lambda x: F.cast(x, to),
        lambda x: x.astype(to),
        [(3, 4)],
        dtype=float_dtype,
        device=device,
        check_dtype=False,
        tolerances=tol,
        backward=False,
    )
    x = kusari.Variable(device_array(np.ones((3, 4), float_dtype), device))
    y = F.cast(x, to)
    gy = kusari.Variable(device_array(np.full((3, 4), 0.5, to), device))
    (gx,) = kusari.grad([y], [x], [gy], enable_double_backprop=True)
    assert gx.dtype == float_dtype
    np.testing.assert_array_equal(kusari.backends.cuda.to_cpu(gx.array), 0.5)
    (ggy,) = kusari.grad([gx], [gy], [gx * 0 + 2])
    assert ggy.dtype == np.dtype(to)
    np.testing.assert_array_equal(kusari.backends.cuda.to_cpu(ggy.array), 2)


def device_array(a, device):
    return kusari.get_device(device).send(a)


def test_cast_output_and_grad_dtypes():
    x = kusari.Variable(np.ones(3, np.float32))
    y = F.cast(x, np.float64)
    assert y.dtype == np.float64
    y.grad = np.ones(3, np.float64)
    y.backward()
    assert x.grad.dtype == np.float32


def test_cast_int_input_has_no_grad():
    y = F.cast(np.arange(3, dtype=np.int32), np.float32)
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y.array, [0, 1, 2])


def test_cast_same_dtype_without_backprop_returns_input():
    x = kusari.Variable(np.ones(3, np.float32))
    with kusari.no_backprop_mode():
        assert F.cast(x, np.float32) is x
    assert F.cast(x, np.float32).creator is not None
