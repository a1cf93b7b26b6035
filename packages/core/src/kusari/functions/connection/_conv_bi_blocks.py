"""Batch-innermost convolutions of small feature maps, in blocks of samples
that each thread runs end to end.

The batch-innermost layout (``_conv_batch_inner``) makes one pass over the
whole batch per stage: the transpose of the input into ``(C, *sp, N)``,
the column copy, the GEMM, the transpose of the product back to
``(N, O, *out)``.  On LeNet's second layer (20 -> 50 channels, 12x12,
batch 100) the columns alone are 12.8 MB, so every stage streams its
operands through memory, and on several threads each stage is its own
hand-off to the pool.  Here the batch is cut into blocks of samples whose
columns take about ``_BLOCK_BYTES``; one thread runs every stage of a
block (input transpose, columns, GEMM on one BLAS thread, output transpose,
bias) while its operands are in its cache, and the blocks are handed to the
pool once per call.  The weight gradient keeps one partial sum per block,
added in block order at the end.

The blocks depend on the shapes only, so the result has the same bits at any
thread count.  One thread, LeNet's second layer (batch 100, four blocks of
25 samples; CPU time, best of 96 interleaved with the per-stage path on a
loaded machine): forward 6.0 -> 4.5 ms, weight gradient 6.3 -> 4.6, input
gradient 6.3 -> 5.3.

Taken where the batch-innermost layout is chosen and a sample's columns are
at most ``_MAX_SAMPLE_BYTES``; larger ones (ResNet-50's 3x3 layers at 7x7,
0.9 MB a sample) keep the per-stage path, whose GEMMs would otherwise get
too few columns per block.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from kusari.functions.connection._conv_batch_inner import (
    _bi_windows,
    _col2im_add_bi_serial,
    _conv_forward_bi,
    _conv_grad_weight_bi,
    _deconv_forward_bi,
    _from_batch_inner,
    _to_batch_inner_into,
)
from kusari.functions.connection._conv_common import (
    _deconv_pad_shape,
    _is_pointwise,
    _prod,
    _workspace,
    high_pad,
)
from kusari.utils import threads

# Tests set this to False to take the per-stage batch-innermost path.
ENABLED = True
# Bytes of the columns of one block (target).  At one thread on LeNet's
# second layer, blocks of 10 / 13 / 25 / 50 samples (1.3 / 1.7 / 3.2 /
# 6.4 MB) ran its forward in 4.6 / 4.5 / 4.4 / 4.8-5.6 ms and its input
# gradient in 6.0 / 5.4 / 4.9 ms up to 25 (each block runs one col2im
# add per kernel offset, so blocks must not be too small). With the count
# rounded down to a power of two (:func:`blocks`), LeNet's layer gets 25.
_BLOCK_BYTES = 3 << 20
# Columns of one sample, at most, for this path (see the module docstring).
_MAX_SAMPLE_BYTES = 256 << 10
# Blocks at most, whatever the batch: each keeps a partial weight gradient.
_MAX_BLOCKS = 32
# Workspace slots (``_conv_common``'s users take 0..5, ``_conv_fused`` and
# ``_conv_fused_bwd`` 20..28, ``_winograd`` 10..15).
_SLOT_X, _SLOT_COLS, _SLOT_OUT, _SLOT_G, _SLOT_PART = 30, 31, 32, 33, 34


def blocks(n: int, sample_bytes: int) -> list[tuple[int, int]]:
    """Sample ranges ``(start, stop)`` of the blocks of a batch of ``n``
    whose columns take ``sample_bytes`` per sample; from the shapes alone.

    Args:
        n: Batch size.
        sample_bytes: Bytes of one sample's columns.

    Returns:
        Contiguous ranges covering ``0..n``, as even as possible; their
        count is a power of two, at most ``_MAX_BLOCKS``.
    """
    per = max(1, _BLOCK_BYTES // max(1, sample_bytes))
    count = min(_MAX_BLOCKS, -(-n // per))
    # A power of two, so that two or four threads get even shares.
    return threads.split(n, 1 << (count.bit_length() - 1))


def _applicable(x: Any, sample_bytes: int) -> bool:
    return (
        ENABLED
        and isinstance(x, numpy.ndarray)
        and x.shape[0] > 1
        and sample_bytes <= _MAX_SAMPLE_BYTES
    )


def _run_blocks(fn: Callable[[int, int], None], n_blocks: int, nbytes: int) -> None:
    """``fn(lo, hi)`` over block ranges on the pool, BLAS on one thread (each
    block's GEMM is one thread's work, and a threaded BLAS would cut it by
    its own thread count)."""
    with threads.one_blas_thread():
        threads.run_split(fn, n_blocks, nbytes)


def _load_block(
    x: Any, raw: Any, lo: tuple[int, ...], hi: tuple[int, ...], cdt: Any
) -> Any:
    """The block ``x`` (m, C, *sp) as (C, *padded sp, m) of ``cdt`` in ``raw``."""
    m, C = x.shape[:2]
    sp = tuple(x.shape[2:])
    P = tuple(v + a + b for v, a, b in zip(sp, lo, hi))
    xt = raw[: C * _prod(P) * m].reshape((C,) + P + (m,))
    if any(lo) or any(hi):
        xt.fill(0)
        dst = xt[(slice(None),) + tuple(slice(a, a + v) for a, v in zip(lo, sp))]
    else:
        dst = xt
    _to_batch_inner_into(x, dst)
    return xt


def conv_forward(
    x: Any,
    W2: Any,
    b: Any,
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    k: tuple[int, ...],
    out: tuple[int, ...],
    cdt: Any,
) -> tuple[Any, Any]:
    """A convolution in the batch-innermost layout.

    Args:
        x: Input (N, C, *sp).
        W2: Filter as (G, O / G, C / G * prod(k)) in ``cdt``.
        b: Bias (O,) or None.
        s, p, d: Stride, padding and dilation.
        k: Kernel size.
        out: Output size.
        cdt: The dtype the GEMMs run in.

    Returns:
        ``(y, b_left)``: y (N, O, *out) in ``cdt``; ``b_left`` is the bias
        still to add (None when the blocks added it).
    """
    N, C = x.shape[:2]
    G, Og, K = W2.shape
    O = G * Og
    nd = len(k)
    L = _prod(out)
    isz = numpy.dtype(cdt).itemsize
    sample_bytes = G * K * L * isz
    pointwise = _is_pointwise(k, s, p, tuple(x.shape[2:]), out)
    if pointwise or not _applicable(x, sample_bytes):
        return _conv_forward_bi(x, W2, s, p, d, k, out, cdt), b
    hi = high_pad(tuple(x.shape[2:]), k, s, p, d, out)
    P = tuple(v + a + c for v, a, c in zip(x.shape[2:], p, hi))
    ranges = blocks(N, sample_bytes)
    mb = max(e - a for a, e in ranges)
    y = numpy.empty((N, O) + tuple(out), dtype=cdt)
    bias = None
    if b is not None:
        bias = b.astype(cdt, copy=False).reshape((1, O) + (1,) * nd)

    def run(lo: int, hi_: int) -> None:
        xraw = _workspace(_SLOT_X, C * _prod(P) * mb, cdt, numpy)
        craw = _workspace(_SLOT_COLS, G * K * L * mb, cdt, numpy)
        yraw = _workspace(_SLOT_OUT, O * L * mb, cdt, numpy)
        for a, e in ranges[lo:hi_]:
            m = e - a
            xt = _load_block(x[a:e], xraw, p, hi, cdt)
            win = _bi_windows(xt, k, s, d, out)
            cols = craw[: win.size].reshape(win.shape)
            cols[...] = win
            r = yraw[: O * L * m].reshape(G, Og, L * m)
            numpy.matmul(W2, cols.reshape(G, K, L * m), out=r)
            dst = y[a:e]
            _from_batch_inner(r.reshape((O,) + tuple(out) + (m,)), dst)
            if bias is not None:
                dst += bias

    _run_blocks(run, len(ranges), N * (sample_bytes + 2 * O * L * isz) + x.nbytes)
    return y, None


def conv_grad_weight(
    x: Any,
    gy: Any,
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    k: tuple[int, ...],
    groups: int,
    cdt: Any,
) -> Any:
    """The weight gradient of a convolution in the batch-innermost layout.

    Args:
        x: Input (N, C, *sp).
        gy: Output gradient (N, O, *out).
        s, p, d: Stride, padding and dilation.
        k: Kernel size.
        groups: Channel groups.
        cdt: The dtype the GEMMs and sums run in.

    Returns:
        gW as (G, C / G * prod(k), O / G) in ``cdt``.
    """
    N, C = x.shape[:2]
    O = gy.shape[1]
    out = tuple(gy.shape[2:])
    G = groups
    Og = O // G
    K = C // G * _prod(k)
    L = _prod(out)
    isz = numpy.dtype(cdt).itemsize
    sample_bytes = G * K * L * isz
    pointwise = _is_pointwise(k, s, p, tuple(x.shape[2:]), out)
    if pointwise or not _applicable(x, sample_bytes):
        return _conv_grad_weight_bi(x, gy, s, p, d, k, groups, cdt)
    hi = high_pad(tuple(x.shape[2:]), k, s, p, d, out)
    P = tuple(v + a + c for v, a, c in zip(x.shape[2:], p, hi))
    ranges = blocks(N, sample_bytes)
    mb = max(e - a for a, e in ranges)
    # The partial sums live in the calling thread's scratch (a fresh 0.4 MB
    # on LeNet's second layer page-faulted at every call); each block
    # writes its own, whichever thread runs it.
    nparts = len(ranges) * G * K * Og
    partial = _workspace(_SLOT_PART, nparts, cdt, numpy)
    partial = partial.reshape(len(ranges), G, K, Og)

    def run(lo: int, hi_: int) -> None:
        xraw = _workspace(_SLOT_X, C * _prod(P) * mb, cdt, numpy)
        craw = _workspace(_SLOT_COLS, G * K * L * mb, cdt, numpy)
        graw = _workspace(_SLOT_G, O * L * mb, cdt, numpy)
        for i in range(lo, hi_):
            a, e = ranges[i]
            m = e - a
            xt = _load_block(x[a:e], xraw, p, hi, cdt)
            win = _bi_windows(xt, k, s, d, out)
            cols = craw[: win.size].reshape(win.shape)
            cols[...] = win
            g = graw[: O * L * m].reshape((O,) + out + (m,))
            _to_batch_inner_into(gy[a:e], g)
            # (K, L m) @ (L m, Og): the orientation OpenBLAS runs fastest
            # with a long inner extent (see _conv_core.conv_grad_weight).
            gT = g.reshape(G, Og, L * m).swapaxes(-1, -2)
            numpy.matmul(cols.reshape(G, K, L * m), gT, out=partial[i])

    _run_blocks(run, len(ranges), N * (sample_bytes + O * L * isz) + x.nbytes)
    total = partial[0].copy()
    for i in range(1, len(ranges)):  # in block order: the same bits anywhere
        total += partial[i]
    return total


def deconv_forward(
    x: Any,
    W2: Any,
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    k: tuple[int, ...],
    out: tuple[int, ...],
    cdt: Any,
) -> Any:
    """A transposed convolution (a convolution's input gradient) in the
    batch-innermost layout: per block, ``col = W2 @ x`` then col2im.

    Args:
        x: Input (N, Cin, *in).
        W2: Filter as (G, Cout / G * prod(k), Cin / G) in ``cdt``.
        s, p, d: Stride, padding and dilation.
        k: Kernel size.
        out: Output size.
        cdt: The dtype the GEMMs and sums run in.

    Returns:
        y (N, Cout, *out) in ``cdt``, without bias.
    """
    N, Cin = x.shape[:2]
    insz = tuple(x.shape[2:])
    G, CKg, Cing = W2.shape
    Kk = _prod(k)
    Cout = G * CKg // Kk
    Lin = _prod(insz)
    isz = numpy.dtype(cdt).itemsize
    sample_bytes = G * CKg * Lin * isz
    if _is_pointwise(k, s, p, insz, out) or not _applicable(x, sample_bytes):
        return _deconv_forward_bi(x, W2, s, p, d, k, out, cdt)
    P = _deconv_pad_shape(out, p, insz, s, k, d)
    ranges = blocks(N, sample_bytes)
    mb = max(e - a for a, e in ranges)
    y = numpy.empty((N, Cout) + tuple(out), dtype=cdt)
    crop = (slice(None),) + tuple(slice(a, a + o) for a, o in zip(p, out))
    zero = (0,) * len(k)

    def run(lo: int, hi_: int) -> None:
        xraw = _workspace(_SLOT_X, Cin * Lin * mb, cdt, numpy)
        craw = _workspace(_SLOT_COLS, G * CKg * Lin * mb, cdt, numpy)
        yraw = _workspace(_SLOT_OUT, Cout * _prod(P) * mb, cdt, numpy)
        for a, e in ranges[lo:hi_]:
            m = e - a
            xt = _load_block(x[a:e], xraw, zero, zero, cdt)
            col = craw[: G * CKg * Lin * m].reshape(G, CKg, Lin * m)
            numpy.matmul(W2, xt.reshape(G, Cing, Lin * m), out=col)
            ypt = yraw[: Cout * _prod(P) * m].reshape((Cout,) + P + (m,))
            ypt.fill(0)
            cols = col.reshape((Cout,) + tuple(k) + insz + (m,))
            _col2im_add_bi_serial(cols, ypt, k, s, d, insz, 0)
            _from_batch_inner(ypt[crop], y[a:e])

    work = N * (sample_bytes + (Cin * Lin + Cout * _prod(P)) * isz)
    _run_blocks(run, len(ranges), work)
    return y
