"""The blocked weight gradient of 2-d convolutions (``_conv_fused_bwd``).

Checked against a float64 NumPy reference and against the sample-major path
it replaces, for strides, pads, dilations, groups, cover-all, batch 1 and
batches that the blocks do not divide, every float dtype and a
non-contiguous ``gy``; results must be bit for bit the same on one thread
and on three.  The whole backward (``gx``, ``gW``, ``gb``) of
``F.convolution_2d`` is checked against the float64 reference too.
"""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.functions.connection import (
    _conv_batch_inner,
    _conv_core,
    _conv_fused,
    _conv_fused_bwd,
    _conv_s2d,
    _conv_sm_blocks,
)
from kusari.utils import get_conv_outsize, threads


def _padded(x, k, s, p, d, out):
    N, C, H, Wd = x.shape
    big = [
        max(n + pp, (o - 1) * ss + (kk - 1) * dd + 1) + pp
        for n, pp, o, ss, kk, dd in zip((H, Wd), p, out, s, k, d)
    ]
    xp = np.zeros((N, C, *big))
    xp[:, :, p[0] : p[0] + H, p[1] : p[1] + Wd] = x
    return xp


def _windows(xp, ky, kx, s, d, out):
    a, c = ky * d[0], kx * d[1]
    return xp[
        :,
        :,
        a : a + s[0] * (out[0] - 1) + 1 : s[0],
        c : c + s[1] * (out[1] - 1) + 1 : s[1],
    ]


def grads_ref64(x, W, gy, s, p, d, groups):
    """(gx, gW, gb) of a convolution in float64, one einsum per offset."""
    N, C, H, Wd = x.shape
    O, Cg, kh, kw = W.shape
    out = gy.shape[2:]
    xp = _padded(x.astype(np.float64), (kh, kw), s, p, d, out)
    gxp = np.zeros_like(xp)
    gy = gy.astype(np.float64)
    W = W.astype(np.float64)
    gW = np.zeros(W.shape)
    Og = O // groups
    for g in range(groups):
        cs, os_ = slice(g * Cg, (g + 1) * Cg), slice(g * Og, (g + 1) * Og)
        for ky in range(kh):
            for kx in range(kw):
                win = _windows(xp[:, cs], ky, kx, s, d, out)
                gW[os_, :, ky, kx] = np.einsum("noij,ncij->oc", gy[:, os_], win)
                gwin = _windows(gxp[:, cs], ky, kx, s, d, out)
                gwin += np.einsum("noij,oc->ncij", gy[:, os_], W[os_, :, ky, kx])
    gx = gxp[:, :, p[0] : p[0] + H, p[1] : p[1] + Wd]
    return gx, gW, gy.sum(axis=(0, 2, 3))


def _out(xs, ws, s, p, d, cover_all):
    return tuple(
        get_conv_outsize(n, k, ss, pp, cover_all, dd)
        for n, k, ss, pp, dd in zip(xs[2:], ws[2:], s, p, d)
    )


# x shape, W shape, stride, pad, dilate, groups, cover_all
CASES = [
    ((3, 3, 13, 17), (4, 3, 3, 5), (1, 1), (0, 0), (1, 1), 1, False),
    ((1, 3, 30, 31), (5, 3, 11, 11), (4, 4), (2, 2), (1, 1), 1, False),
    ((5, 4, 15, 16), (6, 2, 3, 3), (2, 3), (1, 2), (1, 1), 2, False),
    ((4, 2, 20, 21), (3, 2, 3, 3), (2, 2), (1, 1), (2, 2), 1, False),
    ((5, 2, 20, 21), (3, 2, 4, 5), (3, 2), (0, 3), (1, 2), 1, True),
    ((7, 1, 28, 28), (20, 1, 5, 5), (1, 1), (0, 0), (1, 1), 1, False),
    ((3, 3, 40, 41), (8, 3, 7, 7), (2, 2), (3, 3), (1, 1), 1, True),
    ((2, 6, 19, 23), (6, 2, 2, 3), (1, 5), (0, 1), (1, 1), 3, True),
    ((3, 4, 12, 13), (6, 4, 1, 2), (2, 2), (0, 0), (1, 1), 1, False),
]
IDS = [
    "k3x5",
    "alex_like_s4_batch1",
    "groups_s2x3",
    "dilate2_s2",
    "cover_all_s3x2_dilate",
    "lenet1_batch7",
    "stem_s2_cover_all",
    "stride_w_gt_kernel",
    "1x2_stride2",
]
TOL = {np.float16: 2e-2, np.float32: 1e-4, np.float64: 1e-10}


@pytest.fixture(autouse=True)
def _blocked_everywhere(monkeypatch):
    # Every case takes the blocked path, with several chunks of blocks.
    monkeypatch.setattr(_conv_batch_inner, "_FORCE_LAYOUT", "sample")
    # Neither the sample blocks nor the phase split take the cases first.
    monkeypatch.setattr(_conv_sm_blocks, "ENABLED", False)
    monkeypatch.setattr(_conv_s2d, "ENABLED", False)
    monkeypatch.setattr(_conv_fused_bwd, "_MIN_PLANE", 1)
    monkeypatch.setattr(_conv_fused_bwd, "_MIN_CHUNK_COLS", 1)
    monkeypatch.setattr(threads, "_num_threads", 1)


def _data(case, dtype, seed=0):
    xs, ws, s, p, d, g, cover_all = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(xs).astype(dtype)
    W = rng.standard_normal(ws).astype(dtype)
    gy = rng.standard_normal((xs[0], ws[0], *_out(xs, ws, s, p, d, cover_all)))
    return x, W, gy.astype(dtype)


def _grad_w(x, gy, ws, s, p, d, g):
    return _conv_core.conv_grad_weight(x, gy, ws, s, p, d, g)


@pytest.mark.parametrize(
    "block_bytes", [1, 3000, 640 << 10], ids=["rows1", "bands", "samples"]
)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_matches_reference_and_old_path(case, dtype, block_bytes, monkeypatch):
    xs, ws, s, p, d, g, _ = case
    monkeypatch.setattr(_conv_fused, "_BLOCK_BYTES", block_bytes)
    monkeypatch.setattr(_conv_fused, "_MIN_COLS", 1)
    x, W, gy = _data(case, dtype)
    _, ref, _ = grads_ref64(x, W, gy, s, p, d, g)
    calls = []
    real = _conv_fused_bwd.conv_grad_weight
    monkeypatch.setattr(
        _conv_fused_bwd, "conv_grad_weight", lambda *a: calls.append(1) or real(*a)
    )
    gW = _grad_w(x, gy, ws, s, p, d, g)
    assert calls, "the blocked path was not taken"
    assert gW.dtype == dtype and gW.shape == ws
    tol = TOL[dtype]
    scale = np.abs(ref).max()
    np.testing.assert_allclose(gW.astype(np.float64), ref, rtol=tol, atol=tol * scale)
    monkeypatch.setattr(_conv_fused_bwd, "ENABLED", False)
    old = _grad_w(x, gy, ws, s, p, d, g)
    assert len(calls) == 1
    np.testing.assert_allclose(
        gW.astype(np.float64), old.astype(np.float64), rtol=tol, atol=tol * scale
    )


@pytest.mark.parametrize("blocks", ["bands", "two_samples"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_thread_count_does_not_change_results(case, blocks, monkeypatch):
    xs, ws, s, p, d, g, _ = case
    x, _, gy = _data(case, np.float32, seed=1)
    out = gy.shape[2:]
    per_col = xs[1] * ws[2] * ws[3] * 4
    block = 3000 if blocks == "bands" else 2 * out[0] * out[1] * per_col
    monkeypatch.setattr(_conv_fused, "_BLOCK_BYTES", block)
    monkeypatch.setattr(_conv_fused, "_MIN_COLS", 1)
    monkeypatch.setattr(threads, "_num_threads", 1)
    one = _grad_w(x, gy, ws, s, p, d, g)
    # Three threads on uneven pieces, however small the work.
    monkeypatch.setattr(threads, "_num_threads", 3)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    split = []
    real = threads.run_split
    monkeypatch.setattr(
        threads, "run_split", lambda fn, n, nb: split.append(n) or real(fn, n, nb)
    )
    many = _grad_w(x, gy, ws, s, p, d, g)
    m, r = _conv_fused._plan(xs[0], xs[1] * ws[2] * ws[3], 4, out)
    if -(-xs[0] // m) * -(-out[0] // r) > 1:
        assert split and max(split) > 1, "the chunks were not split over threads"
    np.testing.assert_array_equal(one, many)


def test_chunks_depend_on_shapes_only(monkeypatch):
    monkeypatch.setattr(_conv_fused_bwd, "_MIN_CHUNK_COLS", 4096)
    monkeypatch.setattr(threads, "_num_threads", 1)
    one = _conv_fused_bwd._chunks(10, 5760, 2000)
    monkeypatch.setattr(threads, "_num_threads", 7)
    assert _conv_fused_bwd._chunks(10, 5760, 2000) == one
    # LeNet's first layer: ten blocks of ten samples, one chunk each.
    assert one == [(i, i + 1) for i in range(10)]
    # Few columns: one chunk; large partial sums: as many as fit.
    assert _conv_fused_bwd._chunks(10, 100, 2000) == [(0, 10)]
    assert len(_conv_fused_bwd._chunks(10, 820, 2000)) == 2
    assert len(_conv_fused_bwd._chunks(100, 10**4, 20 << 20)) == 1
    assert len(_conv_fused_bwd._chunks(1000, 10**4, 4)) == 64


def test_planes_of_min_cols_take_one_sample_per_block(monkeypatch):
    # LeNet's first layer (24x24 planes, 576 >= _MIN_COLS pixels): one
    # sample per block, gy read where it lies; 8x8 planes keep blocks of
    # several samples.
    seen = []
    real = _conv_fused_bwd._BlockColumns.fill

    def fill(self, i, mm, r0, rr):
        seen.append(mm)
        return real(self, i, mm, r0, rr)

    monkeypatch.setattr(_conv_fused_bwd._BlockColumns, "fill", fill)
    rng = np.random.default_rng(8)
    for xs, ws, many in (
        ((12, 1, 28, 28), (20, 1, 5, 5), False),
        ((12, 2, 12, 12), (3, 2, 5, 5), True),
    ):
        x = rng.standard_normal(xs).astype(np.float32)
        oh = xs[2] - ws[2] + 1
        gy = rng.standard_normal((xs[0], ws[0], oh, oh)).astype(np.float32)
        seen.clear()
        gW = _conv_fused_bwd.conv_grad_weight(
            x, gy, ws[2:], (1, 1), (0, 0), (1, 1), 1, np.float32
        )
        assert (max(seen) > 1) == many
        want = np.einsum(
            "nohw,nckhlw->ockl",
            gy.astype(np.float64),
            np.lib.stride_tricks.sliding_window_view(x, (oh, oh), axis=(2, 3))
            .transpose(0, 1, 2, 4, 3, 5)
            .astype(np.float64),
        )
        np.testing.assert_allclose(gW, want, rtol=1e-4, atol=1e-3)


def test_noncontiguous_gy_and_x(monkeypatch):
    monkeypatch.setattr(_conv_fused, "_BLOCK_BYTES", 2000)
    monkeypatch.setattr(_conv_fused, "_MIN_COLS", 1)
    rng = np.random.default_rng(2)
    big = rng.standard_normal((3, 8, 18, 20)).astype(np.float32)
    x = big[:, ::2, 1:, ::2]
    ws = (5, 4, 3, 3)
    W = np.zeros(ws, np.float32)
    gy = rng.standard_normal((3, 15, 8, 10)).astype(np.float32)
    gy = gy.transpose(0, 3, 2, 1)[:, ::2, ::-1]  # (3, 5, 8, 8), any strides
    assert not gy.flags.c_contiguous
    _, ref, _ = grads_ref64(x, W, gy, (1, 1), (0, 0), (1, 1), 1)
    gW = _grad_w(x, gy, ws, (1, 1), (0, 0), (1, 1), 1)
    np.testing.assert_allclose(gW, ref, rtol=1e-4, atol=1e-4)


def test_blas_held_to_one_thread(monkeypatch, blas_holds):
    asked = blas_holds
    monkeypatch.setattr(_conv_fused, "_BLOCK_BYTES", 2000)
    monkeypatch.setattr(_conv_fused, "_MIN_COLS", 1)
    monkeypatch.setattr(threads, "_num_threads", 2)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    x = np.ones((4, 2, 12, 12), np.float32)
    gy = np.ones((4, 3, 10, 10), np.float32)
    gW = _grad_w(x, gy, (3, 2, 3, 3), (1, 1), (0, 0), (1, 1), 1)
    assert asked == [1]
    np.testing.assert_array_equal(gW, np.full((3, 2, 3, 3), 400, np.float32))
    # Unsplit too: a threaded BLAS would sum the inner extent in pieces.
    monkeypatch.setattr(threads, "_num_threads", 1)
    _grad_w(x, gy, (3, 2, 3, 3), (1, 1), (0, 0), (1, 1), 1)
    assert asked == [1, 1]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_public_backward_matches_reference(case, dtype):
    # gx, gW and gb of F.convolution_2d against the float64 reference.
    xs, ws, s, p, d, g, cover_all = case
    x, W, gy = _data(case, dtype, seed=3)
    b = np.random.default_rng(4).standard_normal(ws[0]).astype(dtype)
    xv, Wv, bv = kusari.Variable(x), kusari.Variable(W), kusari.Variable(b)
    y = F.convolution_2d(
        xv, Wv, bv, stride=s, pad=p, cover_all=cover_all, dilate=d, groups=g
    )
    y.grad = gy
    y.backward()
    for got, ref in zip((xv.grad, Wv.grad, bv.grad), grads_ref64(x, W, gy, s, p, d, g)):
        assert got.dtype == dtype
        tol = TOL[dtype]
        np.testing.assert_allclose(
            got.astype(np.float64), ref, rtol=tol, atol=tol * np.abs(ref).max()
        )


def test_applicable(monkeypatch):
    monkeypatch.setattr(_conv_fused_bwd, "_MIN_PLANE", 256)
    ok = _conv_fused_bwd.applicable
    assert ok(np, (3, 3), (16, 16))
    assert not ok(np, (3, 3), (15, 15))
    assert not ok(np, (3, 3, 3), (16,) * 3)
    assert not ok(object(), (3, 3), (16, 16))
    # 1x1 kernels keep the sample-major path, strided or not
    assert not ok(np, (1, 1), (16, 16))
    assert ok(np, (1, 3), (16, 16))


def _grad_x(gy, W, xs, s, p, d, g):
    return _conv_core.deconv_forward(gy, W, None, s, p, d, g, tuple(xs[2:]))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_per_sample_grad_x_matches_reference_and_old_path(case, dtype, monkeypatch):
    # Every plane counts as large: one GEMM and col2im per sample, the
    # samples split over the threads.
    xs, ws, s, p, d, g, _ = case
    monkeypatch.setattr(_conv_core, "_LARGE_L", 1)
    x, W, gy = _data(case, dtype, seed=5)
    ref, _, _ = grads_ref64(x, W, gy, s, p, d, g)
    calls = []
    real = _conv_fused_bwd.deconv_per_sample
    monkeypatch.setattr(
        _conv_fused_bwd, "deconv_per_sample", lambda *a: calls.append(1) or real(*a)
    )
    gx = _grad_x(gy, W, xs, s, p, d, g)
    assert calls, "the per-sample path was not taken"
    assert gx.dtype == dtype and gx.shape == xs
    tol = TOL[dtype]
    scale = np.abs(ref).max()
    np.testing.assert_allclose(gx.astype(np.float64), ref, rtol=tol, atol=tol * scale)
    monkeypatch.setattr(_conv_fused_bwd, "ENABLED", False)
    # Each element sums the same terms in the same order as the older loop.
    np.testing.assert_array_equal(gx, _grad_x(gy, W, xs, s, p, d, g))
    assert len(calls) == 1


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_per_sample_grad_x_thread_count_does_not_change_results(case, monkeypatch):
    xs, ws, s, p, d, g, _ = case
    monkeypatch.setattr(_conv_core, "_LARGE_L", 1)
    _, W, gy = _data(case, np.float32, seed=6)
    gy = np.asfortranarray(gy)  # any strides
    monkeypatch.setattr(threads, "_num_threads", 1)
    one = _grad_x(gy, W, xs, s, p, d, g)
    monkeypatch.setattr(threads, "_num_threads", 3)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    split = []
    real = threads.run_split
    monkeypatch.setattr(
        threads, "run_split", lambda fn, n, nb: split.append(n) or real(fn, n, nb)
    )
    many = _grad_x(gy, W, xs, s, p, d, g)
    if xs[0] >= 3:
        assert xs[0] in split, "the samples were not split over the threads"
    np.testing.assert_array_equal(one, many)


def test_per_sample_grad_x_needs_a_sample_per_thread(monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", 4)
    assert _conv_fused_bwd.per_sample_applicable(np, 4)
    assert not _conv_fused_bwd.per_sample_applicable(np, 3)
    assert not _conv_fused_bwd.per_sample_applicable(object(), 8)
    monkeypatch.setattr(_conv_fused_bwd, "ENABLED", False)
    assert not _conv_fused_bwd.per_sample_applicable(np, 8)


def test_strided_mid_planes_take_per_sample_grad_x(monkeypatch):
    # A 3x3 stride-2 layer's input gradient on 16x16 planes (256 pixels):
    # per sample by default, batch-innermost when switched off; same sums.
    rng = np.random.default_rng(7)
    W = rng.standard_normal((6, 4, 3, 3)).astype(np.float32)
    gy = rng.standard_normal((5, 6, 16, 16)).astype(np.float32)
    args = ((2, 2), (1, 1), (1, 1), 1, (32, 32))
    calls = []
    real = _conv_fused_bwd.deconv_per_sample
    monkeypatch.setattr(
        _conv_fused_bwd, "deconv_per_sample", lambda *a: calls.append(1) or real(*a)
    )
    monkeypatch.setattr(_conv_batch_inner, "_FORCE_LAYOUT", None)
    gx = _conv_core.deconv_forward(gy, W, None, *args)
    assert calls == [1]
    monkeypatch.setattr(_conv_fused_bwd, "ENABLED", False)
    old = _conv_core.deconv_forward(gy, W, None, *args)
    assert calls == [1]
    np.testing.assert_allclose(gx, old, rtol=1e-5, atol=1e-5)
    ok = _conv_fused_bwd.strided_per_sample
    monkeypatch.setattr(_conv_fused_bwd, "ENABLED", True)
    monkeypatch.setattr(threads, "_num_threads", 2)
    assert ok(np, (2, 2), 256, 2) and ok(np, (1, 2), 300, 5)
    assert not ok(np, (2, 2), 256, 1)  # fewer samples than threads
    assert not ok(np, (2, 2), 255, 5)
    assert not ok(np, (1, 1), 4000, 5)
    assert not ok(object(), (2, 2), 4000, 5)
