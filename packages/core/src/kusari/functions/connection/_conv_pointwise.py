"""1x1 convolutions on NumPy whose GEMMs the intra-op threads share.

A 1x1 convolution without padding is a GEMM per group: ``y[n] = W x[n]``
with ``x`` read at every ``s``-th pixel.  ``_conv_core`` runs the plainest
case itself (stride 1, planes of ``_POINTWISE_GEMM_L`` pixels or more, no
cast: one GEMM per sample on ``x`` as it lies, the samples split over the
threads).  The others went through the sample-major column loop, whose one
GEMM over a chunk of samples ran on BLAS's own threads: ResNet-50's 7x7
stage, its stride-2 projections and the weight gradient of every 1x1 layer
(batch 16) took 1.2-4x the CPU time at two threads that they took at one
on a loaded machine (BLAS threads waiting on each other), for a speedup of
1.0-1.5x at best.

Here a chunk of samples is copied into columns ``(G, K, m * L)`` with the
copy split over the threads, and the chunk's GEMM is cut into a grid of
blocks (:func:`kusari.functions.math._gemm_split.matmul_into`), each
block one thread's GEMM with BLAS on one thread.  The transposed convolution
(the input gradient) writes its product into every ``s``-th pixel of a
zeroed output, the same loop read the other way.

The weight gradient ``gW[g] = sum_n x[n, g] gy[n, g]^T`` is summed in fixed
chunks of samples, one partial sum per chunk (a chunk of one sample reads
``x`` and ``gy`` where they lie, no copy), the partial sums added in chunk
order; at one thread this ran 10-25% faster than the one GEMM over copied
columns on ResNet-50's 1x1 layers at 56x56 and 28x28 (batch 16), as fast
at 14x14.  Where the pixels are too few for enough chunks (the 7x7 stage)
the filter is cut into tiles instead, each tile summing all samples.  The
choice and the cuts follow from the shapes only, so the bits do not depend
on the thread count.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari.functions.connection._conv_common import (
    _CHUNK_BYTES,
    _prod,
    _workspace,
    matmul_into,
    par_assign,
    par_zero,
)
from kusari.functions.math import _gemm_split
from kusari.utils import threads

# Tests set this to False to take the sample-major column loop.
ENABLED = True
# The weight gradient is summed in fixed chunks of samples, each chunk at
# least _MIN_CHUNK_COLS pixels (the partial sums cost one add per 2 *
# _MIN_CHUNK_COLS flops of GEMM; 384 cuts ResNet-50's 14x14 planes at batch
# 16 into 8 even chunks) and at most _MAX_CHUNKS of them; with fewer than
# _MIN_CHUNKS chunks (ResNet-50's 7x7 stage at batch 16: one) the
# filter is cut into tiles instead.
_MIN_CHUNK_COLS = 384
_MAX_CHUNKS = 64
_MIN_CHUNKS = 4
# Bytes of all partial sums of the sample split together, at most.
_PARTIAL_BYTES = 32 << 20
# Workspace slots (``_conv_fused`` and ``_conv_fused_bwd`` take 20..28).
_SLOT_SRC, _SLOT_DST, _SLOT_GY = 30, 31, 32


def applicable(
    xp: Any,
    k: tuple[int, ...],
    p: tuple[int, ...],
    big: tuple[int, ...],
    small: tuple[int, ...],
    s: tuple[int, ...],
) -> bool:
    """Whether a 1x1 convolution between planes ``big`` (its input, the
    transposed convolution's output) and ``small`` (its output) takes this
    path: NumPy, no padding, every window inside ``big`` (no cover-all
    overhang)."""
    return (
        ENABLED
        and xp is numpy
        and all(v == 1 for v in k)
        and not any(p)
        and len(big) == len(small)
        and all((o - 1) * st < n for o, st, n in zip(small, s, big))
    )


def _strided(a: Any, s: tuple[int, ...], small: tuple[int, ...]) -> Any:
    """View of ``a`` (N, C, *big) at every ``s``-th pixel: (N, C, *small)."""
    return a[
        (slice(None), slice(None))
        + tuple(slice(0, (o - 1) * st + 1, st) for o, st in zip(small, s))
    ]


def _to_columns(dst: Any, src: Any, groups: int) -> None:
    """``dst`` (G, K, m, *sp) = ``src`` (m, G * K, *sp), any strides."""
    m, c = src.shape[:2]
    sp = src.shape[2:]
    s5 = src.reshape((m, groups, c // groups) + sp)
    par_assign(dst, s5.transpose((1, 2, 0) + tuple(range(3, 3 + len(sp)))))


def _from_columns(dst: Any, src: Any, groups: int) -> None:
    """``dst`` (m, G * M, *sp) = ``src`` (G, M, m, *sp); ``dst`` any strides."""
    m, c = dst.shape[:2]
    sp = dst.shape[2:]
    d5 = dst.reshape((m, groups, c // groups) + sp)
    par_assign(d5, src.transpose((2, 0, 1) + tuple(range(3, 3 + len(sp)))))


def _gemm_columns(W2: Any, src: Any, dst: Any, cdt: Any) -> None:
    """``dst[n, g] = W2[g] @ src[n, g]`` over the pixels, for ``W2`` (G, M, K),
    ``src`` (N, G * K, *sp) and ``dst`` (N, G * M, *sp) (views of any
    strides), in chunks of samples whose columns stay within ``_CHUNK_BYTES``."""
    G, M, K = W2.shape
    N = src.shape[0]
    sp = tuple(src.shape[2:])
    L = _prod(sp)
    isz = numpy.dtype(cdt).itemsize
    m = max(1, min(N, _CHUNK_BYTES // max(1, G * (K + M) * L * isz)))
    xbuf = _workspace(_SLOT_SRC, G * K * m * L, cdt, numpy)
    ybuf = _workspace(_SLOT_DST, G * M * m * L, cdt, numpy)
    for i in range(0, N, m):
        c = min(m, N - i)
        cols = xbuf[: G * K * c * L].reshape((G, K, c) + sp)
        _to_columns(cols, src[i : i + c], G)
        res = ybuf[: G * M * c * L].reshape(G, M, c * L)
        matmul_into(W2, cols.reshape(G, K, c * L), res)
        _from_columns(dst[i : i + c], res.reshape((G, M, c) + sp), G)


def conv_forward(
    x: Any, W2: Any, s: tuple[int, ...], out: tuple[int, ...], cdt: Any
) -> Any:
    """1x1 convolution without bias: ``x`` (N, C, *in), ``W2`` (G, Og, Cg) in
    ``cdt``, stride ``s``; returns (N, G * Og, *out) in ``cdt``."""
    G, Og, _ = W2.shape
    y = numpy.empty((x.shape[0], G * Og) + tuple(out), dtype=cdt)
    _gemm_columns(W2, _strided(x, s, out), y, cdt)
    return y


def deconv_forward(
    gy: Any, W2: Any, s: tuple[int, ...], out: tuple[int, ...], cdt: Any
) -> Any:
    """Transposed 1x1 convolution without bias (the input gradient of
    :func:`conv_forward`): ``gy`` (N, G * Cing, *in), ``W2`` (G, Coutg, Cing)
    in ``cdt``; returns (N, G * Coutg, *out) in ``cdt``, zero off the
    ``s``-strided pixels."""
    G, Coutg, _ = W2.shape
    small = tuple(gy.shape[2:])
    gx = numpy.empty((gy.shape[0], G * Coutg) + tuple(out), dtype=cdt)
    if small != tuple(out):
        par_zero(gx)
    _gemm_columns(W2, gy, _strided(gx, s, small), cdt)
    return gx


def conv_grad_weight(x: Any, gy: Any, s: tuple[int, ...], groups: int, cdt: Any) -> Any:
    """Weight gradient of a 1x1 convolution: ``x`` (N, C, *in), ``gy``
    (N, O, *out), stride ``s``; returns (G, Cg, Og) in ``cdt`` (the
    transpose of the filter's (G, Og, Cg))."""
    N, C = x.shape[:2]
    O = gy.shape[1]
    small = tuple(gy.shape[2:])
    G, Cg, Og = groups, C // groups, O // groups
    src = _strided(x, s, small)
    L = _prod(small)
    isz = numpy.dtype(cdt).itemsize
    gW = numpy.empty((G, Cg, Og), dtype=cdt)
    n = min(
        N,
        _MAX_CHUNKS,
        max(1, N * L // _MIN_CHUNK_COLS),
        max(1, _PARTIAL_BYTES // max(1, G * Cg * Og * isz)),
    )
    tiles = len(_gemm_split.blocks(Cg, Og, N * L)[1])
    if n < _MIN_CHUNKS and G * tiles > 1:
        # Too few pixels to cut the sum: cut the filter into tiles.
        m = max(1, min(N, _CHUNK_BYTES // max(1, (C + O) * L * isz)))
        for i in range(0, N, m):
            xc, gc = _chunk_columns(src, gy, i, min(m, N - i), G, cdt, True)
            matmul_into(xc, gc.swapaxes(1, 2), gW, accumulate=i > 0)
        return gW
    chunks = threads.split(N, n)
    partial = numpy.empty((len(chunks), G, Cg, Og), dtype=cdt)

    def run(lo: int, hi: int) -> None:
        for c in range(lo, hi):
            i0, i1 = chunks[c]
            xc, gc = _chunk_columns(src, gy, i0, i1 - i0, G, cdt, False)
            numpy.matmul(xc, gc.swapaxes(1, 2), out=partial[c])

    work = (x.nbytes + gy.nbytes) // 4 + N * L * C * O * isz // 64
    # One BLAS thread even when not split, so the bits stay those of a split.
    with threads.one_blas_thread():
        threads.run_split(run, len(chunks), work)
    gW[...] = partial[0]
    for c in range(1, len(chunks)):
        gW += partial[c]
    return gW


def _chunk_columns(
    src: Any, gy: Any, i: int, m: int, groups: int, cdt: Any, split: bool
) -> tuple[Any, Any]:
    """Samples ``i:i+m`` of ``src`` and ``gy`` as columns (G, Cg, m * L) and
    (G, Og, m * L); one sample of the right dtype whose pixels are one run
    is used where it lies.  ``split``: copy on the intra-op threads (else
    this thread's workspaces, for a caller that is one of them)."""
    C, O = src.shape[1], gy.shape[1]
    sp = tuple(gy.shape[2:])
    L = _prod(sp)
    Cg, Og = C // groups, O // groups
    out = []
    for a, ch, slot in ((src, Cg, _SLOT_SRC), (gy, Og, _SLOT_GY)):
        part = a[i : i + m]
        if m == 1 and part.dtype == cdt and _rows_contiguous(part[0]):
            out.append(part[0].reshape(groups, ch, L))
            continue
        buf = _workspace(slot, groups * ch * m * L, cdt, numpy)
        dst = buf.reshape((groups, ch, m) + sp)
        if split:
            _to_columns(dst, part, groups)
        else:
            p5 = part.reshape((m, groups, ch) + sp)
            dst[...] = p5.transpose((1, 2, 0) + tuple(range(3, 3 + len(sp))))
        out.append(dst.reshape(groups, ch, m * L))
    return out[0], out[1]


def _rows_contiguous(a: Any) -> bool:
    """Whether ``a`` (C, *sp) is a (C, L) matrix with unit pixel stride."""
    isz = a.itemsize
    expect = isz
    for n, st in zip(reversed(a.shape[1:]), reversed(a.strides[1:])):
        if n > 1 and st != expect:
            return False
        expect *= n
    return True
