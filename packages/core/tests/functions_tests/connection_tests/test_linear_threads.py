"""Linear and 2-d matmul with their GEMMs split over the intra-op threads:
values against one thread, the same bits at 2 and 3 threads, the graph
(double backprop) and array backward passes agreeing, and float16 kept on
its own path."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.functions.math import _gemm_split
from kusari.utils import threads


@pytest.fixture
def gemm_blocks(gemm_blocks, monkeypatch):
    # conftest's fixture lowers the work per block; test-sized products also
    # need shorter blocks than MIN_BLOCK_LEN.
    monkeypatch.setattr(_gemm_split, "MIN_BLOCK_LEN", 1)
    return gemm_blocks


def _rand(shape, dtype, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _linear(x, W, b, double=False, n_batch_axes=1):
    vx, vW = kusari.Variable(x), kusari.Variable(W)
    vb = None if b is None else kusari.Variable(b)
    y = F.linear(vx, vW, vb, n_batch_axes=n_batch_axes)
    y.grad = _rand(y.shape, y.dtype, 99)
    y.backward(enable_double_backprop=double)
    out = [y.array, vx.grad, vW.grad]
    if vb is not None:
        out.append(vb.grad)
    return out


CASES = {
    # name: (x shape, W shape, n_batch_axes)
    "mlp": ((40, 72), (96, 72), 1),
    "batch_1": ((1, 72), (96, 72), 1),
    "n_out_1": ((80, 72), (1, 72), 1),
    "tall": ((130, 20), (40, 20), 1),
    "two_batch_axes": ((4, 10, 72), (50, 72), 2),
    "flattened_input": ((40, 8, 9), (64, 72), 1),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", sorted(CASES))
def test_linear_threads(case, dtype, gemm_blocks, monkeypatch):
    xs, ws, nba = CASES[case]
    x, W, b = _rand(xs, dtype, 0), _rand(ws, dtype, 1), _rand(ws[:1], dtype, 2)
    monkeypatch.setattr(threads, "_num_threads", 1)
    one = _linear(x, W, b, n_batch_axes=nba)
    assert gemm_blocks == []
    monkeypatch.setattr(threads, "_num_threads", 3)
    three = _linear(x, W, b, n_batch_axes=nba)
    assert gemm_blocks and max(gemm_blocks) > 1
    monkeypatch.setattr(threads, "_num_threads", 2)
    two = _linear(x, W, b, n_batch_axes=nba)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for a, c, d in zip(one, two, three):
        assert a.dtype == c.dtype == d.dtype and a.shape == c.shape == d.shape
        np.testing.assert_allclose(d, a, rtol=tol, atol=tol)
        np.testing.assert_array_equal(c, d)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_linear_graph_and_array_backward_same_bits(dtype, gemm_blocks, monkeypatch):
    # With double backprop the gradients go through F.matmul on Variables;
    # without, through backward_array: the same products, the same blocks.
    monkeypatch.setattr(threads, "_num_threads", 3)
    x, W, b = _rand((40, 72), dtype, 3), _rand((96, 72), dtype, 4), None
    arrays = _linear(x, W, b)
    graph = _linear(x, W, b, double=True)
    assert gemm_blocks
    for a, g in zip(arrays, graph):
        np.testing.assert_array_equal(a, g)


def test_linear_non_contiguous_input(gemm_blocks, monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", 3)
    base = _rand((72, 80), np.float32, 5)
    x = base.T  # (80, 72), not C-contiguous
    W = _rand((64, 72), np.float32, 6)
    y, gx, gW = _linear(x, W, None)
    assert gemm_blocks
    gy = _rand(y.shape, np.float32, 99)
    np.testing.assert_allclose(y, x @ W.T, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gx, gy @ W, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gW, gy.T @ x, rtol=1e-5, atol=1e-5)


def test_linear_float16_keeps_its_path(gemm_blocks, monkeypatch):
    x, W, b = (_rand((40, 72), np.float16, 7), _rand((96, 72), np.float16, 8), None)
    monkeypatch.setattr(threads, "_num_threads", 1)
    one = _linear(x, W, b)
    monkeypatch.setattr(threads, "_num_threads", 3)
    three = _linear(x, W, b)
    assert gemm_blocks == []
    for a, c in zip(one, three):
        np.testing.assert_array_equal(a, c)


def test_linear_mixed_dtypes(gemm_blocks, monkeypatch):
    # x @ W.T and gy @ W mix float16 and float32: NumPy's path as before.
    # gW sums in float32 (both operands cast up): that product is split.
    x, W = _rand((40, 72), np.float16, 9), _rand((96, 72), np.float32, 10)
    monkeypatch.setattr(threads, "_num_threads", 1)
    one = _linear(x, W, None)
    monkeypatch.setattr(threads, "_num_threads", 3)
    y, gx, gW = _linear(x, W, None)
    assert len(gemm_blocks) == 1
    assert y.dtype == gx.dtype == np.float16 and gW.dtype == np.float32
    np.testing.assert_array_equal(y, one[0])
    np.testing.assert_array_equal(gx, one[1])
    np.testing.assert_allclose(gW, one[2], rtol=1e-5, atol=1e-5)
