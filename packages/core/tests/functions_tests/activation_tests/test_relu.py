"""relu's CPU fast paths (functions/activation/relu.py): the forward against a
block of zeros and the backward with a float mask give the bits of
``numpy.maximum(x, 0.0)`` and ``gy * (y > 0)``, special values included."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.functions.activation import relu as relu_mod
from kusari.utils import threads

SPECIAL = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1.5, -2.5, 1e-30, -1e-30]


def _special(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    flat[: len(SPECIAL) * 3 : 3] = np.array(SPECIAL, dtype)[: flat[::3].size]
    return x


def _bits(a):
    return a.view(np.int32 if a.dtype == np.float32 else np.int64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (1,), (7, 13), (3, 0, 4), (5, 4, 3, 2)])
def test_forward_bits_match_maximum_with_scalar(dtype, shape):
    x = _special(shape, dtype, 0) if shape != () else np.array(-0.0, dtype)
    y = F.relu(x).array
    want = np.maximum(x, dtype(0))
    assert type(y) is np.ndarray and y.dtype == dtype and y.shape == shape
    assert y.flags.c_contiguous
    np.testing.assert_array_equal(_bits(y), _bits(np.asarray(want)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_threads", [1, 3])
def test_forward_in_zero_blocks_and_split(dtype, n_threads, monkeypatch):
    # Arrays longer than the zero block run block by block, on one thread or
    # split; the zero block stays zero and read-only.
    monkeypatch.setattr(relu_mod, "_ZERO_BLOCK", 64)
    monkeypatch.setattr(relu_mod, "_zeros", {})
    monkeypatch.setattr(threads, "_num_threads", n_threads)
    monkeypatch.setattr(threads, "MIN_ELEMENTS", 100)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    split = []
    real = threads.parallel_for
    monkeypatch.setattr(
        threads, "parallel_for", lambda fn, n: split.append(n) or real(fn, n)
    )
    x = _special((9, 101), dtype, 1)
    y = F.relu(x).array
    np.testing.assert_array_equal(_bits(y), _bits(np.maximum(x, 0.0)))
    assert bool(split) == (n_threads > 1)
    zeros = relu_mod._zeros[np.dtype(dtype)]
    assert zeros.size == 64 and not zeros.flags.writeable
    assert not zeros.any()


def test_forward_other_layouts_and_dtypes():
    base = _special((12, 10), np.float32, 2)
    for x in (base.T, base[::2], base.astype(np.float16)):
        y = F.relu(x).array
        np.testing.assert_array_equal(y, np.maximum(x, 0))
        assert y.dtype == x.dtype


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_backward_of_0d_array_is_an_array(dtype):
    xv = kusari.Variable(np.array(2.0, dtype))
    y = F.relu(xv)
    y.grad = np.array(3.0, dtype)
    y.backward()
    assert type(xv.grad) is np.ndarray and xv.grad.shape == ()
    assert xv.grad == 3.0 and xv.grad.dtype == dtype


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_backward_bits_match_mask_product(dtype):
    x = _special((6, 50), dtype, 3)
    gy = _special((6, 50), dtype, 4)[::-1].copy()  # inf/NaN where y is 0
    xv = kusari.Variable(x)
    y = F.relu(xv)
    y.grad = gy
    with np.errstate(invalid="ignore"):  # inf * 0, as gy * (y > 0) warns
        y.backward()
        want = gy * (y.array > 0)
    assert xv.grad.dtype == dtype and xv.grad.shape == x.shape
    np.testing.assert_array_equal(_bits(xv.grad), _bits(want))


def test_backward_gradient_and_double_backward():
    from kusari.testing import check_op

    def ref(x):
        return np.maximum(x, 0)

    # Values away from the kink, so the numerical gradient is defined.
    def away_from_zero(rng, dtype):
        x = rng.uniform(0.2, 1.0, (4, 6)) * rng.choice([-1.0, 1.0], (4, 6))
        return x.astype(dtype)

    check_op(F.relu, ref, [away_from_zero], dtype=np.float64)
    check_op(F.relu, ref, [away_from_zero], dtype=np.float32)
