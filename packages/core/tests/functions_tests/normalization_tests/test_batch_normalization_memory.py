"""What batch normalization keeps for its backward: the retained input ``x``
and per-channel statistics, never a normalized copy ``x_hat`` of x's size
(which would live as long as the graph); the backward recomputes x_hat."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.functions.normalization.batch_normalization import (
    BatchNormalization,
    BatchNormalizationGrad,
)
from kusari.utils import threads

# x dtype, parameter dtype (the compute dtype is float32 for float16 x, and
# the promoted one for mixed parameters: x_hat was up to twice x's size)
DTYPES = [
    (np.float16, np.float16),
    (np.float16, np.float32),
    (np.float32, np.float32),
    (np.float32, np.float64),
    (np.float64, np.float64),
]


def _inputs(shape, dx, dp, seed=0):
    rng = np.random.default_rng(seed)
    c = shape[1]
    x = kusari.Variable((rng.standard_normal(shape) * 2 + 1).astype(dx))
    gamma = kusari.Variable(rng.uniform(0.5, 1.5, c).astype(dp))
    beta = kusari.Variable(rng.standard_normal(c).astype(dp))
    return x, gamma, beta


def _big_arrays(node, size):
    return [k for k, v in vars(node).items() if getattr(v, "size", 0) >= size]


@pytest.mark.parametrize("dx,dp", DTYPES)
def test_node_keeps_statistics_only(dx, dp):
    x, gamma, beta = _inputs((4, 3, 5, 5), dx, dp)
    y = F.batch_normalization(x, gamma, beta)
    node = y.creator
    assert isinstance(node, BatchNormalization)
    assert _big_arrays(node, x.size) == []
    assert node.mean.shape == node.inv_std.shape == (3,)
    # x itself is what is retained (and freed by the backward pass).
    assert node.inputs[0].data is x.array


def test_batch_renormalization_keeps_statistics_only():
    x, gamma, beta = _inputs((4, 3, 5, 5), np.float32, np.float32)
    y = F.batch_renormalization(
        x,
        gamma,
        beta,
        2.0,
        1.0,
        running_mean=np.zeros(3, np.float32),
        running_var=np.ones(3, np.float32),
    )
    assert _big_arrays(y.creator, x.size) == []


@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("dx,dp", DTYPES)
def test_forward_allocates_only_its_output(dx, dp, n_threads, monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", n_threads)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    x, gamma, beta = _inputs((8, 16, 32, 32), dx, dp)
    # The kernels' per-thread scratch (a few chunks' worth, kept for all
    # calls) is made by the first call.
    F.batch_normalization(x, gamma, beta)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        y = F.batch_normalization(x, gamma, beta)
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # y and a few small arrays; a stored x_hat would add at least x.nbytes.
    assert y.array.nbytes <= kept < y.array.nbytes + x.array.nbytes // 4


def test_graph_after_backward_holds_no_activation():
    # An intermediate x (as a convolution's output is): after the backward
    # pass frees the graph, nothing of x's size is left alive through it.
    x0, gamma, beta = _inputs((8, 16, 16, 16), np.float32, np.float32)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        h = x0 * 1.0
        loss = F.sum(F.batch_normalization(h, gamma, beta) ** 2)
        del h
        loss.backward()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # Only x0.grad is left while loss (and with it the graph) is alive: the
    # retained h and y were released, and no x_hat was kept.
    nbytes = x0.array.nbytes
    assert x0.grad is not None
    assert nbytes <= kept < nbytes + nbytes // 4, kept


@pytest.mark.parametrize("dx,dp", DTYPES)
def test_grad_node_recomputes_x_hat_from_x(dx, dp):
    # BatchNormalizationGrad keeps x (for the second-order terms) and the
    # statistics; its results are those of the closed form on x_hat.
    x, gamma, beta = _inputs((5, 3, 4), dx, dp, seed=1)
    y = F.batch_normalization(x, gamma, beta)
    gy = np.random.default_rng(2).standard_normal(y.shape).astype(dx)
    gx, gg, gb = kusari.grad(
        [y], [x, gamma, beta], grad_outputs=[gy], enable_double_backprop=True
    )
    node = gx.creator
    assert isinstance(node, BatchNormalizationGrad)
    assert _big_arrays(node, x.size) == []
    assert node.inputs[0].data is x.array
    x64 = x.array.astype(np.float64)
    mean = x64.mean(axis=(0, 2), keepdims=True)
    x_hat = (x64 - mean) / np.sqrt(x64.var(axis=(0, 2), keepdims=True) + 2e-5)
    g64 = gy.astype(np.float64)
    tol = 2e-2 if dx == np.float16 else 1e-5
    np.testing.assert_allclose(gb.array, g64.sum(axis=(0, 2)), rtol=tol, atol=tol)
    np.testing.assert_allclose(
        gg.array, (g64 * x_hat).sum(axis=(0, 2)), rtol=tol, atol=tol
    )
    assert gx.dtype == dx and gg.dtype == dp and gb.dtype == dp


def test_backward_twice_with_retained_graph():
    x, gamma, beta = _inputs((6, 4, 3), np.float64, np.float64, seed=3)
    y = F.batch_normalization(x, gamma, beta)
    y.grad = np.random.default_rng(4).standard_normal(y.shape)
    y.backward(retain_grad=True)
    first = (x.grad.copy(), gamma.grad.copy())
    x.cleargrad()
    gamma.cleargrad()
    y.backward(retain_grad=True)
    np.testing.assert_array_equal(x.grad, first[0])
    np.testing.assert_array_equal(gamma.grad, first[1])
