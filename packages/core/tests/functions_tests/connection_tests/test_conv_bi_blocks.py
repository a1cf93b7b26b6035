"""Batch-innermost convolutions in blocks of samples (``_conv_bi_blocks``):
the block cut, values against the per-stage batch-innermost path and a
float64 reference (every dimensionality, stride, pad, dilation, groups,
dtype, blocks of uneven size), the same bits at any thread count, and the
cases left to the per-stage path."""

from __future__ import annotations

import numpy as np
import pytest
from test_conv_layouts import CASES, TOL, _grads

from kusari.functions.connection import (
    _conv_batch_inner,
    _conv_bi_blocks,
    _conv_core,
)
from kusari.utils import threads


@pytest.fixture
def taken(monkeypatch):
    """Batch-innermost layout forced, blocks of about two samples; the list
    collects which of the three block kernels ran."""
    monkeypatch.setattr(_conv_batch_inner, "_FORCE_LAYOUT", "batch")
    calls = []
    for name in ("conv_forward", "conv_grad_weight", "deconv_forward"):
        real = getattr(_conv_bi_blocks, name)

        def spy(*a, _r=real, _n=name):
            out = _r(*a)
            calls.append(_n)
            return out

        monkeypatch.setattr(_conv_bi_blocks, name, spy)
    monkeypatch.setattr(_conv_bi_blocks, "_BLOCK_BYTES", 1)
    return calls


def _arrays(case, dtype, seed=0):
    _, _, xs, ws, nb = case
    rng = np.random.default_rng(seed)
    return [
        rng.standard_normal(xs).astype(dtype),
        rng.standard_normal(ws).astype(dtype),
        rng.standard_normal(nb).astype(dtype),
    ]


def test_blocks_cover_the_batch_and_depend_on_shapes_only(monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", 1)
    one = _conv_bi_blocks.blocks(100, 128_000)
    monkeypatch.setattr(threads, "_num_threads", 7)
    assert _conv_bi_blocks.blocks(100, 128_000) == one
    assert one[0][0] == 0 and one[-1][1] == 100
    assert all(a[1] == b[0] for a, b in zip(one, one[1:]))
    sizes = [e - a for a, e in one]
    assert max(sizes) - min(sizes) <= 1
    # LeNet's second layer: 128 kB of columns a sample, 3 MB blocks: five
    # would do, four (a power of two) are made.
    assert len(one) == 4
    assert _conv_bi_blocks.blocks(3, 10) == [(0, 3)]
    assert len(_conv_bi_blocks.blocks(10_000, 1 << 20)) == _conv_bi_blocks._MAX_BLOCKS


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_blocks_match_the_per_stage_path(case, dtype, taken, monkeypatch):
    fn = case[1]
    arrays = _arrays(case, dtype)
    new = _grads(fn, arrays)
    if case[3][2:] != (1,) * (len(case[3]) - 2):
        # Every case but the 1x1 ones runs its three passes in blocks.
        assert {"conv_forward", "conv_grad_weight", "deconv_forward"} <= set(taken)
    monkeypatch.setattr(_conv_bi_blocks, "ENABLED", False)
    old = _grads(fn, arrays)
    for a, b in zip(new, old):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_same_bits_at_any_thread_count(case, taken, monkeypatch):
    fn = case[1]
    arrays = _arrays(case, np.float32, seed=1)
    monkeypatch.setattr(threads, "_num_threads", 1)
    one = _grads(fn, arrays)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    for n in (2, 3):
        monkeypatch.setattr(threads, "_num_threads", n)
        many = _grads(fn, arrays)
        for a, b in zip(one, many):
            np.testing.assert_array_equal(a, b)


def _conv_ref(x, W, b):
    """Valid 2-d convolution (stride 1) in float64, by kernel offset."""
    x, W = x.astype(np.float64), W.astype(np.float64)
    kh, kw = W.shape[2:]
    oh, ow = x.shape[2] - kh + 1, x.shape[3] - kw + 1
    y = np.zeros((x.shape[0], W.shape[0], oh, ow))
    for i in range(kh):
        for j in range(kw):
            y += np.einsum(
                "nchw,oc->nohw", x[:, :, i : i + oh, j : j + ow], W[:, :, i, j]
            )
    return y + b.reshape(1, -1, 1, 1)


def test_lenet_layer_against_float64(monkeypatch):
    # LeNet's second layer at batch 23 in blocks of 5 or 6 samples: forward,
    # weight gradient and input gradient (the transposed convolution).
    monkeypatch.setattr(_conv_bi_blocks, "_BLOCK_BYTES", 4 * 20 * 25 * 64 * 4)
    assert len(_conv_bi_blocks.blocks(23, 20 * 25 * 64 * 4)) == 4
    rng = np.random.default_rng(3)
    x = rng.standard_normal((23, 20, 12, 12)).astype(np.float32)
    W = rng.standard_normal((50, 20, 5, 5)).astype(np.float32)
    b = rng.standard_normal(50).astype(np.float32)
    gy = rng.standard_normal((23, 50, 8, 8)).astype(np.float32)
    args = ((1, 1), (0, 0), (1, 1), 1)
    assert _conv_batch_inner._conv_layout_is_bi(
        np, x.shape, (5, 5), (1, 1), (0, 0), (8, 8), 50
    )
    y = _conv_core.conv_forward(x, W, b, *args, (8, 8))
    np.testing.assert_allclose(y, _conv_ref(x, W, b), rtol=1e-4, atol=1e-3)
    gW = _conv_core.conv_grad_weight(x, gy, W.shape, *args)
    want = np.zeros(W.shape)
    for i in range(5):
        for j in range(5):
            win = x[:, :, i : i + 8, j : j + 8].astype(np.float64)
            want[:, :, i, j] = np.einsum("nohw,nchw->oc", gy, win)
    np.testing.assert_allclose(gW, want, rtol=1e-4, atol=1e-3)
    gx = _conv_core.deconv_forward(gy, W, None, *args, (12, 12))
    # <conv(x), gy> == <x, gx>: the input gradient is the adjoint.
    lhs = float((_conv_ref(x, W, np.zeros(50)) * gy).sum())
    rhs = float((x.astype(np.float64) * gx).sum())
    assert abs(lhs - rhs) <= 1e-4 * abs(lhs) + 1e-2


def test_non_contiguous_input(taken):
    case = CASES[1]  # stride 2, pad 1
    x, W, b = _arrays(case, np.float32, seed=4)
    big = np.zeros(x.shape[:3] + (2 * x.shape[3],), np.float32)
    view = big[..., ::2]
    view[...] = x
    a = _grads(case[1], [view, W, b])
    c = _grads(case[1], [x, W, b])
    assert "conv_forward" in taken
    for u, v in zip(a, c):
        np.testing.assert_array_equal(u, v)


def test_large_samples_keep_the_per_stage_path(taken, monkeypatch):
    monkeypatch.setattr(_conv_bi_blocks, "_MAX_SAMPLE_BYTES", 0)
    calls = []
    real = _conv_batch_inner._conv_forward_bi
    monkeypatch.setattr(
        _conv_bi_blocks,
        "_conv_forward_bi",
        lambda *a: calls.append(1) or real(*a),
    )
    case = CASES[0]
    x, W, b = _arrays(case, np.float32)
    y = _grads(case[1], [x, W, b])[0]
    assert calls
    monkeypatch.setattr(_conv_bi_blocks, "_MAX_SAMPLE_BYTES", 1 << 30)
    np.testing.assert_allclose(y, _grads(case[1], [x, W, b])[0], rtol=1e-5, atol=1e-5)
