import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _ref(method):
    def ref(r, i):
        y = getattr(np.fft, method)(r + 1j * i, axis=-1)
        return y.real, y.imag

    return ref


@pytest.mark.parametrize("method", ["fft", "ifft"])
@pytest.mark.parametrize("shape", [(4,), (2, 3)])
def test_fft(method, shape, float_dtype, device):
    fn = getattr(F, method)
    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    check_op(
        lambda r, i: fn((r, i)),
        _ref(method),
        [shape, shape],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


@pytest.mark.parametrize("method", ["fft", "ifft"])
def test_one_output_used(method, device):
    # Only the real part feeds the loss: the imaginary gradient is None.
    fn = getattr(F, method)
    check_op(
        lambda r, i: fn((r, i))[0],
        lambda r, i: _ref(method)(r, i)[0],
        [(2, 4), (2, 4)],
        dtype=np.float64,
        device=device,
    )


def test_roundtrip():
    r = np.random.default_rng(0).standard_normal((2, 5))
    i = np.zeros_like(r)
    yr, yi = F.ifft(F.fft((r, i)))
    np.testing.assert_allclose(yr.array, r, atol=1e-12)
    np.testing.assert_allclose(yi.array, 0, atol=1e-12)


def test_not_a_pair():
    with pytest.raises(TypeError, match="fft"):
        F.fft(np.zeros(4, np.float32))


def test_shape_mismatch():
    with pytest.raises(type_check.InvalidType, match="fft"):
        F.fft((np.zeros(4, np.float32), np.zeros(3, np.float32)))
