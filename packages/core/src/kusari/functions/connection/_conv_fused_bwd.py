"""Weight gradient of 2-d convolutions on NumPy in cache-sized blocks, split
over the intra-op threads with a fixed chunking and a fixed-order sum.

``gW[g] = sum_blocks cols_block @ gy_block^T``: the same blocks as the fused
forward (``_conv_fused``: a band of output rows of one sample, or a few
whole samples, whose columns stay in the L2 cache).  For each block a
thread copies the columns of ``x``, takes the block of ``gy`` (a strided
``(Og, rows * OW)`` matrix of ``gy`` itself for a band of one sample, else
a copy) and adds the product to its chunk's partial sum.

The sample-major path of ``_conv_core`` runs one GEMM per 64 MiB chunk of
samples, ``(K, m L) @ (m L, Og)``: BLAS threads such a GEMM over ``K`` and
``Og`` only, which for small layers is a few tiles (LeNet's first layer: 25
by 20 over an inner extent of 57,600), so a second thread gained little
there, and the column copy and ``gy``'s transpose were separate passes
over memory.

Results do not depend on the thread count: the blocks are cut into chunks
by the shapes alone (:func:`_chunks`), each chunk sums its blocks in order
into its own partial sum, and the partial sums are added in chunk order.
At one thread this ran 3.2 -> 3.0 ms on LeNet's first layer (batch 100),
432 -> 359 on 3x128x128 11x11 (batch 32), 177 -> 128 on AlexNet's conv1
(batch 64) and 76 -> 53 on ResNet-50's 7x7 stem (batch 16).

The input gradient of those layers, a transposed convolution, is left to
``_conv_core`` except for large planes: :func:`deconv_per_sample` runs
each sample's GEMM and ``col2im`` on one thread, the samples split over
the threads.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari.functions.connection import _conv_fused
from kusari.functions.connection._conv_common import _deconv_pad_shape, _workspace
from kusari.functions.connection._conv_fused import _BlockColumns, _Geometry, _plan
from kusari.utils import threads

# Tests set this to False to take the sample-major path.
ENABLED = True
# Output planes smaller than this keep the older paths (the batch-innermost
# layout takes most of them; see ``_conv_fused._MIN_PLANE``).
_MIN_PLANE = 256
# Columns (GEMM inner extent) a chunk sums at least: each chunk costs a
# partial sum of ``K * Og`` elements written and added once, against
# ``2 * K * Og`` flops per column of GEMM (ResNet-50's stride-2 3x3 layer at
# 56x56 still makes 12 chunks, for as many threads).
_MIN_CHUNK_COLS = 1024
# Chunks at most: enough for as many threads, few enough that the partial
# sums stay small next to the work.
_MAX_CHUNKS = 64
# Bytes of all partial sums together, at most.
_PARTIAL_BYTES = 32 << 20
# Input planes (pixels) from which a strided transposed convolution runs
# one sample at a time (see :func:`strided_per_sample`).
_MIN_STRIDED_L = 256
# Workspace slots (``_conv_fused`` takes 20..22).
_SLOT_COLS, _SLOT_XS, _SLOT_GY, _SLOT_PART = 23, 24, 25, 26
_SLOT_COL2IM, _SLOT_PAD = 27, 28


def applicable(xp: Any, k: tuple[int, ...], out: tuple[int, ...]) -> bool:
    """Whether a weight gradient with output planes ``out`` takes this path:
    NumPy, 2-d, a kernel larger than 1x1, planes of ``_MIN_PLANE`` or more
    pixels.

    1x1 kernels are not taken here: one GEMM over a chunk of samples was
    as fast or faster, with or without stride (ResNet-50's stride-2
    projections at batch 16: 43 ms vs 44 at 56x56, 38 vs 45 at 28x28, one
    thread); ``_conv_pointwise`` runs them.
    """
    return (
        ENABLED
        and xp is numpy
        and len(out) == 2
        and out[0] * out[1] >= _MIN_PLANE
        and any(v != 1 for v in k)
    )


def _chunks(n_blocks: int, block_cols: int, part_bytes: int) -> list[tuple[int, int]]:
    """Contiguous ranges of blocks, one partial sum each, chosen from the
    shapes only (never from the thread count)."""
    n = min(
        n_blocks,
        _MAX_CHUNKS,
        max(1, n_blocks * block_cols // _MIN_CHUNK_COLS),
        max(1, _PARTIAL_BYTES // max(1, part_bytes)),
    )
    return threads.split(n_blocks, max(1, n))


def conv_grad_weight(
    x: Any,
    gy: Any,
    k: tuple[int, ...],
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    groups: int,
    cdt: Any,
) -> Any:
    """``gW[o, c, ky, kx] = sum_{n, i, j} gy[n, o, i, j] x_pad[n, c, s0 i +
    d0 ky, s1 j + d1 kx]`` for a 2-d NumPy convolution.

    Args:
        x: Input (N, C, H, W).
        gy: Output gradient (N, O, OH, OW); any strides.
        k: Kernel size (kh, kw).
        s, p, d: Stride, padding and dilation, pairs.
        groups: Channel groups.
        cdt: The dtype the GEMMs and the sums run in.

    Returns:
        gW (O, C / groups, kh, kw) in ``cdt``.
    """
    N, C = x.shape[:2]
    O = gy.shape[1]
    out = (int(gy.shape[2]), int(gy.shape[3]))
    OH, OW = out
    kh, kw = k
    kk = kh * kw
    G = groups
    Cg, Og = C // G, O // G
    K = Cg * kk
    geo = _Geometry(tuple(x.shape), (kh, kw), s, p, d, out, x.dtype != cdt)
    isz = numpy.dtype(cdt).itemsize
    m, r = _plan(N, C * kk, isz, out)
    if m > 1 and OH * OW >= _conv_fused._MIN_COLS and gy.dtype == cdt:
        # One sample per block when a sample's plane is a long enough GEMM
        # on its own: gy is then read where it lies instead of transposed
        # block by block (LeNet's first layer, 24x24, batch 100: 2.4 ->
        # 1.9 ms at one thread; CIFAR-like 32x32 and 6-channel 24x24
        # layers as fast as before).
        m, r = 1, OH
    blocks = [
        (i, min(m, N - i), r0, min(r, OH - r0))
        for i in range(0, N, m)
        for r0 in range(0, OH, r)
    ]
    chunks = _chunks(len(blocks), m * r * OW, G * K * Og * isz)
    partial = numpy.empty((len(chunks), G, K, Og), dtype=cdt)
    # A band of one sample reads gy where it lies: an (Og, rows * OW) matrix
    # of row stride OH * OW, when its rows are contiguous.
    gy_direct = (
        m == 1
        and gy.dtype == cdt
        and gy.strides[3] == isz
        and gy.strides[2] == OW * isz
    )

    def run(lo: int, hi: int) -> None:
        bc = _BlockColumns(geo, x, m, r, cdt, _SLOT_COLS, _SLOT_XS)
        cols = bc.cols
        gbuf = None
        if not gy_direct:
            gbuf = _workspace(_SLOT_GY, O * m * r * OW, cdt, numpy)
        tmp = _workspace(_SLOT_PART, K * Og, cdt, numpy).reshape(K, Og)
        for c in range(lo, hi):
            acc = partial[c]
            first = True
            for i, mm, r0, rr in blocks[chunks[c][0] : chunks[c][1]]:
                bc.fill(i, mm, r0, rr)
                n_cols = mm * rr * OW
                c4 = cols[:, :, :mm, :rr].reshape(G, K, mm, rr * OW)
                if gbuf is None:
                    gyb = gy[i, :, r0 : r0 + rr].reshape(G, Og, n_cols)
                else:
                    g4 = gbuf[: O * n_cols].reshape(O, mm, rr, OW)
                    g4[...] = gy[i : i + mm, :, r0 : r0 + rr].transpose(1, 0, 2, 3)
                    gyb = g4.reshape(G, Og, n_cols)
                for g in range(G):
                    cg = c4[g, :, 0] if mm == 1 else c4[g].reshape(K, n_cols)
                    # (K, cols) @ (cols, Og): the orientation OpenBLAS runs
                    # fastest with a long inner extent (see _conv_core).
                    if first:
                        numpy.matmul(cg, gyb[g].T, out=acc[g])
                    else:
                        numpy.matmul(cg, gyb[g].T, out=tmp)
                        acc[g] += tmp
                first = False

    work = N * (C * kk * OH * OW + O * OH * OW) * isz + x.nbytes
    # BLAS on one thread even when the chunks are not split: a threaded
    # OpenBLAS cuts the long inner extent of these thin GEMMs and sums the
    # pieces in another order, which would make gW depend on the thread
    # count (and each chunk's GEMMs are one thread's work; see _conv_fused).
    with threads.one_blas_thread():  # about 8 us
        threads.run_split(run, len(chunks), work)
    total = partial[0]
    for c in range(1, len(chunks)):
        total += partial[c]
    # (G, K, Og) in the columns' kernel order -> (O, Cg, kh * kw) in W's.
    flat = [ky * kw + kx for ky, kx in geo.order]
    gW = numpy.empty((G, Og, Cg, kk), dtype=cdt)
    gW[:, :, :, flat] = total.reshape(G, Cg, kk, Og).transpose(0, 3, 1, 2)
    return gW.reshape((O, Cg, kh, kw))


def strided_per_sample(xp: Any, s: tuple[int, ...], lin: int, n: int) -> bool:
    """Whether a strided NumPy transposed convolution with input planes of
    ``lin`` pixels, below ``_conv_core._LARGE_L``, and batch ``n`` runs one
    sample at a time (:func:`deconv_per_sample`, which needs a sample per
    thread) rather than batch-innermost.

    Its ``col2im`` adds, strided along every axis, ran faster per sample on
    planes of ``_MIN_STRIDED_L`` pixels or more (the input gradients of 3x3
    stride-2 layers, one thread: 72 -> 54 ms on ResNet-50's at 56x56 batch
    16, 60 -> 37 on 64 channels at 112x112 batch 8; AlexNet's conv1 200 ->
    195); stride 1 kept the batch-innermost layout, which was faster there.
    """
    return (
        lin >= _MIN_STRIDED_L and any(v > 1 for v in s) and per_sample_applicable(xp, n)
    )


def per_sample_applicable(xp: Any, n: int) -> bool:
    """Whether a NumPy transposed convolution of large planes and batch
    ``n`` runs one sample per thread: one sample at least per thread."""
    return ENABLED and xp is numpy and n >= threads.get_num_threads()


def deconv_per_sample(
    x: Any,
    W2: Any,
    cout: int,
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    k: tuple[int, ...],
    out: tuple[int, ...],
    cdt: Any,
) -> Any:
    """Transposed convolution of large input planes (the input gradient of a
    convolution), one sample at a time: ``col = W2 @ x[n]`` (one GEMM per
    group), then ``col2im`` of ``col`` into the sample's padded output.

    The samples are split over the intra-op threads, each thread running
    both steps of its samples (BLAS on one thread): the output of a sample
    is written by one thread only, and no step waits for the others.  (The
    older loop split each sample's ``col2im`` by channel, three pieces for
    an RGB input, and handed work to the threads twice per sample.)  Each
    output element sums the same terms in the same order as on one thread.

    Args:
        x: Input (N, Cin, *in) of a NumPy transposed convolution.
        W2: Filter as (G, Cout / G * prod(k), Cin / G) in ``cdt``.
        cout: Output channels.
        s, p, d: Stride, padding and dilation.
        k: Kernel size.
        out: Output size.
        cdt: The dtype the GEMMs and the sums run in.

    Returns:
        y (N, cout, *out) in ``cdt``, without bias.
    """
    from kusari.functions.connection._conv_core import _col2im_add_serial

    N = x.shape[0]
    insz = tuple(x.shape[2:])
    G, CKg, Cing = W2.shape
    Lin = 1
    for v in insz:
        Lin *= v
    P = _deconv_pad_shape(out, p, insz, s, k, d)
    x4 = x.reshape(N, G, Cing, Lin)
    y = numpy.empty((N, cout) + tuple(out), dtype=cdt)
    crop = (0, slice(None)) + tuple(slice(a, a + o) for a, o in zip(p, out))
    psize = cout
    for v in P:
        psize *= v

    def run(lo: int, hi: int) -> None:
        col = _workspace(_SLOT_COL2IM, G * CKg * Lin, cdt, numpy)
        col = col.reshape(G, CKg, Lin)
        ypad = _workspace(_SLOT_PAD, psize, cdt, numpy).reshape((1, cout) + P)
        cols = col.reshape((1, cout) + tuple(k) + insz)
        for i in range(lo, hi):
            numpy.matmul(W2, x4[i].astype(cdt, copy=False), out=col)
            ypad.fill(0)
            _col2im_add_serial(cols, ypad, k, s, d, insz)
            y[i] = ypad[crop]

    isz = numpy.dtype(cdt).itemsize
    work = N * (2 * G * CKg * Lin + psize + y[0].size) * isz + x.nbytes
    with threads.one_blas_thread():
        threads.run_split(run, N, work)
    return y
