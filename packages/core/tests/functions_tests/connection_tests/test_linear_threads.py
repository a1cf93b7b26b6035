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


# Thin batches compute the forward product as (W x^T)^T (connection/linear.py):
# x W^T up to the last bit (OpenBLAS's kernels for a block's ragged edge may
# round differently), the same bits at 2 and 3 threads, the gradients as
# before.
THIN = {
    # name: (x shape, W shape, n_batch_axes)
    "mlp_batch_100": ((100, 784), (1000, 784), 1),
    "lstm_batch_20": ((20, 650), (2600, 650), 1),
    "two_batch_axes": ((4, 5, 256), (300, 256), 2),
}


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", sorted(THIN))
def test_linear_thin_batch_transposed_forward(
    case, dtype, bias, gemm_blocks, monkeypatch
):
    from kusari.functions.connection import linear as linear_mod

    xs, ws, nba = THIN[case]
    x, W = _rand(xs, dtype, 11), _rand(ws, dtype, 12)
    b = _rand(ws[:1], dtype, 13) if bias else None
    taken = []
    real = linear_mod._product_transposed
    monkeypatch.setattr(
        linear_mod,
        "_product_transposed",
        lambda *a: taken.append(1) or real(*a),
    )
    outs = {}
    for n in (1, 2, 3):
        monkeypatch.setattr(threads, "_num_threads", n)
        outs[n] = _linear(x, W, b, n_batch_axes=nba)
        assert len(taken) == n, "the thin batch should take the transposed product"
        y = outs[n][0]
        assert y.flags.c_contiguous and y.dtype == dtype
        assert y.shape == xs[:nba] + ws[:1]
    assert gemm_blocks and max(gemm_blocks) > 1
    for a, c in zip(outs[2], outs[3]):
        np.testing.assert_array_equal(a, c)
    # The plain product x W^T (+ b), as computed before.
    monkeypatch.setattr(linear_mod, "_transposed_pays", lambda x2, W: False)
    for n in (1, 2):
        monkeypatch.setattr(threads, "_num_threads", n)
        plain = _linear(x, W, b, n_batch_axes=nba)
        assert len(taken) == 3
        tol = 1e-6 if dtype == np.float32 else 1e-13
        np.testing.assert_allclose(outs[n][0], plain[0], rtol=tol, atol=tol)
        for a, c in zip(outs[n][1:], plain[1:]):
            np.testing.assert_array_equal(a, c)
    want = x.reshape(-1, ws[1]).astype(np.float64) @ W.T.astype(np.float64)
    if bias:
        want = want + b
    tol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(outs[1][0].reshape(want.shape), want, rtol=tol, atol=tol)


@pytest.mark.parametrize(
    "xs,ws,dx,dw,expected",
    [
        ((100, 784), (1000, 784), np.float32, np.float32, True),
        ((100, 784), (1000, 784), np.float64, np.float64, True),
        ((100, 784), (1000, 784), np.float16, np.float16, False),
        ((100, 784), (1000, 784), np.float32, np.float64, False),  # mixed
        ((161, 784), (1000, 784), np.float32, np.float32, False),  # many rows
        ((100, 784), (199, 784), np.float32, np.float32, False),  # few outputs
        ((100, 100), (1000, 100), np.float32, np.float32, False),  # short k
        ((4, 128), (8, 128), np.float32, np.float32, False),  # too small
    ],
)
def test_linear_transposed_forward_rule(xs, ws, dx, dw, expected):
    from kusari.functions.connection import linear as linear_mod

    x, W = np.zeros(xs, dx), np.zeros(ws, dw)
    assert linear_mod._transposed_pays(x, W) is expected


def test_linear_transposed_forward_double_backprop(monkeypatch):
    # check_op's numerical gradients and double backprop through the
    # transposed forward, with the thresholds lowered to a test-sized input.
    from kusari.functions.connection import linear as linear_mod
    from kusari.testing import check_op

    monkeypatch.setattr(linear_mod, "_T_MIN_K", 1)
    monkeypatch.setattr(linear_mod, "_T_MIN_WORK", 1)
    taken = []
    real = linear_mod._product_transposed
    monkeypatch.setattr(
        linear_mod,
        "_product_transposed",
        lambda *a: taken.append(1) or real(*a),
    )
    for nobias in (False, True):

        def ref(x, W, *b):
            y = x @ W.T
            return y + b[0] if b else y

        inputs = [(3, 4), (7, 4)] + ([] if nobias else [(7,)])
        check_op(
            lambda *a: F.linear(*a[:2], a[2] if len(a) > 2 else None),
            ref,
            inputs,
            dtype=np.float64,
        )
    assert taken


@pytest.mark.parametrize("omatcopy", [True, False])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_linear_transposed_forward_bits(dtype, bias, omatcopy, monkeypatch):
    # OpenBLAS's transposing copy then the bias added in place, or NumPy's
    # transposing add where no omatcopy is found: the same bits as adding
    # the bias in the transposing pass.
    from kusari.functions.connection import linear as linear_mod
    from kusari.utils import blas

    if not omatcopy:
        monkeypatch.setitem(blas._found, "omatcopy", {})
    x, W = _rand((100, 784), dtype, 21), _rand((1000, 784), dtype, 22)
    b = _rand((1000,), dtype, 23) if bias else None
    # The product as _product_transposed computes it (its bits depend on
    # the thread count and BLAS's state, which earlier tests may have set).
    yt = linear_mod._gemm_split.matmul(W, x.T)
    want = yt.T + b if bias else yt.T
    y = linear_mod._product_transposed(x, W, b)
    assert y.flags.c_contiguous
    np.testing.assert_array_equal(y, want)
    if omatcopy and blas.available("omatcopy", dtype):
        calls = []
        real = blas.transpose_into
        monkeypatch.setattr(
            blas, "transpose_into", lambda a, o: calls.append(1) or real(a, o)
        )
        linear_mod._product_transposed(x, W, b)
        assert calls


@pytest.mark.parametrize(
    "shapes,dtypes,nba",
    [
        (((3, 4), (5, 4), (5,)), ("f", "f", "f"), 1),
        (((3, 4), (5, 4)), ("f", "f"), 1),
        (((2, 3, 4), (5, 12)), ("f", "f"), 1),
        (((2, 3, 4), (5, 4), (5,)), ("f", "f", "f"), 2),
        (((3, 4), (5, 3), (5,)), ("f", "f", "f"), 1),  # in_size mismatch
        (((3, 4), (5, 4), (6,)), ("f", "f", "f"), 1),  # bias size
        (((3, 4), (5, 4), (5,)), ("f", "f", "d"), 1),  # bias dtype
        (((3, 4), (5, 4), (5, 1)), ("f", "f", "f"), 1),  # bias ndim
        (((3, 4), (5, 4)), ("i", "f"), 1),  # integer x
        (((3, 4), (5, 4)), ("f", "i"), 1),  # integer W
        (((4,), (5, 4)), ("f", "f"), 1),  # x without a feature axis
        (((3, 4), (5, 4, 1)), ("f", "f"), 1),  # W not 2-d
    ],
)
def test_linear_type_check_on_sight_agrees_with_full_check(shapes, dtypes, nba):
    # The light-mode shortcut passes exactly what the expectations pass.
    from kusari.functions.connection.linear import LinearFunction
    from kusari.utils import type_check

    kinds = {"f": np.float32, "d": np.float64, "i": np.int32}
    arrays = tuple(np.zeros(s, kinds[k]) for s, k in zip(shapes, dtypes))
    f = LinearFunction(nba)
    light = type_check.get_light_types(arrays)
    on_sight = f._passes_on_sight(light)
    try:
        f.check_type_forward(type_check.get_types(arrays, "in_types", False))
        full = True
    except type_check.InvalidType:
        full = False
    assert on_sight is full
    if not full:
        with pytest.raises(type_check.InvalidType):
            with type_check.light_mode:
                f.check_type_forward(light)
