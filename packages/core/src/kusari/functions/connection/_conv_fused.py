"""Fused forward of 2-d convolutions on NumPy: im2col, GEMM, bias and NCHW
layout done block by block, each block on one thread and in cache.

The sample-major path of ``_conv_core`` fills a column buffer for a chunk of
samples (64 MiB), runs one GEMM over it and transposes the product back into
``(N, O, H, W)``: every stage streams its operands through memory, and on
several threads only the copies and the GEMM itself are split (BLAS threads
a GEMM whose operands are a few samples wide, and scales poorly on them).
Here the output is cut into blocks whose columns stay in the L2 cache
(``_BLOCK_BYTES``): a band of output rows of one sample when a sample's
columns are larger than that, else a few whole samples.  For each block a
thread copies the columns, runs the GEMM (BLAS on one thread) and adds the
bias; a block of one sample writes its product straight into the output,
whose ``(O, rows * out_w)`` band is a plain strided matrix (no transpose).
The blocks are split over the intra-op pool, so everything runs in parallel
and no stage makes a pass over memory of its own.

Strided convolutions (stride ``s > 1`` along the width) copy each sample's
padded input once into ``s`` phases, ``xs[c, h, b, j] = x_pad[c, h, s*j + b]``:
a window row of the columns is then a contiguous run of ``xs`` instead of an
``s``-strided gather.  Copy and gather together took 17 ms instead of 28 on
AlexNet's 11x11 stride-4 first layer (batch 64, one thread), 6 instead of 13
on ResNet-50's 7x7 stride-2 stem.  The kernel columns are grouped by
phase, so the columns' kernel axis is a permutation of ``W``'s, applied to
``W`` once per call.

Results do not depend on the thread count: the blocks and their GEMMs are the
same on one thread as on many.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari.functions.connection._conv_common import (
    _as_strided,
    _workspace,
    high_pad,
)
from kusari.utils import threads

# Bytes of the columns of one block: they and the block's product stay in a
# core's L2 cache (1 MiB on the machine measured), where the GEMM reading
# them ran 10-20% faster than on columns streamed from memory (AlexNet
# conv1, 3x128x128 11x11, ResNet-50's 7x7 stem) and the copy writing them
# does not spill.
_BLOCK_BYTES = 640 << 10
# Columns of a block, at least: narrower GEMMs lose more to the packing of
# W than the cache saves (ResNet-50's 3x3 layers, 1152..4608 rows; 384 to
# 1024 columns ran best on one thread).
_MIN_COLS = 512
# Output planes smaller than this stay on the sample-major path, whose one
# GEMM over a chunk of samples beat blocks of a few small planes (ResNet-50's
# 14x14 3x3 layers with 2304 rows of columns: 48 ms vs 52 ms at one thread).
_MIN_PLANE = 256
# Tests set this to False to take the older sample-major path.
ENABLED = True
# Workspace slots (``_conv_common``'s users take 0..5, ``_winograd`` 10..15).
_SLOT_COLS, _SLOT_XS, _SLOT_OUT = 20, 21, 22


def applicable(xp: Any, nd: int, out: tuple[int, ...]) -> bool:
    """Whether a convolution forward with output planes ``out`` takes this
    path: NumPy, 2-d, planes of at least ``_MIN_PLANE`` pixels."""
    return ENABLED and xp is numpy and nd == 2 and out[0] * out[1] >= _MIN_PLANE


def _phase_parts(k: int, st: int) -> list[tuple[int, int, int]]:
    """Kernel offsets ``0..k-1`` grouped by phase ``offset % st``.

    Returns parts ``(first_phase, phases, q)``: phases ``first_phase ..
    first_phase + phases - 1`` each hold ``q`` offsets ``b + st * t``
    (``t < q``); at most two parts, as phases below ``k % st`` hold one
    offset more than the others.
    """
    q_lo, rem = divmod(k, st)
    parts = []
    if rem:
        parts.append((0, rem, q_lo + 1))
    if q_lo:
        parts.append((rem, st - rem, q_lo))
    return parts


class _Geometry:
    """How one convolution's columns are read from a sample.

    Two modes, by the sample buffer a thread copies each sample into:

    * ``plain`` (stride 1 along the width, or dilated): the padded sample
      (C, Hp, Wp), or the sample itself when it needs no padding and no
      cast; a row of the columns is an ``OW``-long run of it.
    * ``rows`` (strided along the width): the width split into ``s1``
      phases (C, Hp, s1, Wb), ``xs[c, h, b, j] = x_pad[c, h, s1 * j + b]``;
      a row of the columns is a contiguous run of ``OW`` elements of it.

    ``order`` is the order of the (ky, kx) kernel offsets in the columns.
    (A full space-to-depth split, both axes, made each kernel offset of a
    band one contiguous run: its gather ran 40% faster on AlexNet's conv1,
    but its sixteen-phase copy of the input and the GEMM over the phase
    width (57 columns per row for 55) took that back, so it is not used.)
    """

    def __init__(
        self,
        x_shape: tuple[int, ...],
        k: tuple[int, int],
        s: tuple[int, ...],
        p: tuple[int, ...],
        d: tuple[int, ...],
        out: tuple[int, ...],
        copy_dtype: bool,
    ) -> None:
        C, H, Wd = x_shape[1:]
        kh, kw = k
        hi = high_pad((H, Wd), k, s, p, d, out)
        self.Hp, self.Wp = H + p[0] + hi[0], Wd + p[1] + hi[1]
        self.k, self.s, self.p, self.d = k, s, p, d
        self.row = out[1]
        self.out = (int(out[0]), int(out[1]))
        if s[1] > 1 and d[1] == 1:
            self.mode = "rows"
            self.parts_x = _phase_parts(kw, s[1])
            self.buf_shape: tuple[int, ...] = (C, self.Hp, s[1], -(-self.Wp // s[1]))
            # Parts outermost: each part is one strided copy.
            self.order = [
                (ky, b + s[1] * t)
                for b0, nb, q in self.parts_x
                for ky in range(kh)
                for b in range(b0, b0 + nb)
                for t in range(q)
            ]
        else:
            self.mode = "plain"
            self.buf_shape = (C, self.Hp, self.Wp)
            self.order = [(ky, kx) for ky in range(kh) for kx in range(kw)]
        self.copy_x = self.mode != "plain" or any(p) or any(hi) or copy_dtype

    def fill(self, buf: Any, xi: Any) -> None:
        """Write sample ``xi`` (C, H, W) into the interior of ``buf``; the
        borders, zeroed by the caller, are never written."""
        H, Wd = xi.shape[1:]
        p, sw = self.p, self.s[1]
        rows = slice(p[0], p[0] + H)
        if self.mode == "plain":
            buf[:, rows, p[1] : p[1] + Wd] = xi
            return
        for b in range(sw):
            # Input columns w with (w + p1) % sw == b, at j = (w + p1) // sw.
            w0 = (b - p[1]) % sw
            if w0 >= Wd:
                continue
            j0, nw = (w0 + p[1]) // sw, -(-(Wd - w0) // sw)
            buf[:, rows, b, j0 : j0 + nw] = xi[:, :, w0::sw]

    def _parts(
        self, base: Any
    ) -> tuple[list[tuple[Any, tuple[int, ...], tuple[int, ...]]], tuple[int, int]]:
        """The strided reads of the columns from ``base``, a sample buffer
        (or the sample itself, ``plain`` mode).

        Returns ``(parts, row_strides)``: each part ``(origin, dims,
        strides)`` reads the kernel offsets ``dims`` (channels first; a
        block of consecutive ones in ``order``) from the view ``origin`` of
        ``base``; ``row_strides`` step over output rows and columns.
        """
        s, d = self.s, self.d
        C: int = base.shape[0]
        kh, kw = self.k
        parts: list[tuple[Any, tuple[int, ...], tuple[int, ...]]]
        if self.mode == "plain":
            sc, sh, sx = (int(v) for v in base.strides)
            parts = [(base, (C, kh, kw), (sc, sh * d[0], sx * d[1]))]
            return parts, (sh * s[0], sx * s[1])
        sc, sh, sb, sx = (int(v) for v in base.strides)
        parts = [
            (base[:, :, b0:], (C, kh, nb, q), (sc, sh * d[0], sb, sx))
            for b0, nb, q in self.parts_x
        ]
        return parts, (sh * s[0], sx)

    def views(
        self, base: Any, cols: Any, r: int, n_bands: int, per_sample: bool
    ) -> list[tuple[Any, Any]]:
        """Pairs ``(src, dst)`` of strided views, one per part: copying
        ``src[band]`` (``src[sample, band]`` with ``per_sample``) into
        ``dst[j]``, each sliced to the band's rows, fills slot ``j`` of the
        columns ``cols`` (C, kh * kw, m, r, row) with output rows ``r * band
        .. r * band + r - 1``.

        ``base`` is the sample buffer, or with ``per_sample`` the input (N,
        C, H, W) itself; the views are built once per call, as
        ``as_strided`` costs microseconds.
        """
        ast = _as_strided(numpy)
        lead_shape: tuple[int, ...] = ()
        lead_st: tuple[int, ...] = ()
        if per_sample:
            lead_shape, lead_st = base.shape[:1], base.strides[:1]
            base = base[0]
        parts, (rs, xs) = self._parts(base)
        dc, dk, dm, dr, dx = cols.strides
        m = cols.shape[2]
        out = []
        col = 0
        for origin, dims, kst in parts:
            tail = (r, self.row)
            src = ast(
                origin,
                shape=lead_shape + (n_bands,) + dims + tail,
                strides=lead_st + (rs * r,) + kst + (rs, xs),
            )
            # dst: channel stride, then the kernel dims row-major in order.
            dst_st = [dk] * (len(dims) - 1)
            for i in range(len(dims) - 3, -1, -1):
                dst_st[i] = dst_st[i + 1] * dims[i + 2]
            dst = ast(
                cols[:, col:],
                shape=(m,) + dims + tail,
                strides=(dm, dc) + tuple(dst_st) + (dr, dx),
            )
            out.append((src, dst))
            n = 1
            for v in dims[1:]:
                n *= v
            col += n
        return out


class _BlockColumns:
    """One thread's column buffer for a call's blocks, and how to fill it.

    Shared by the fused forward and the blocked weight gradient
    (``_conv_fused_bwd``): ``cols`` (C, kh * kw, m, r, OW) from the slot
    ``slot_cols``, and, when the geometry copies samples, a zero-bordered
    sample buffer from ``slot_x``.
    """

    def __init__(
        self,
        geo: _Geometry,
        x: Any,
        m: int,
        r: int,
        cdt: Any,
        slot_cols: int,
        slot_x: int,
    ) -> None:
        C = x.shape[1]
        OH, OW = geo.out
        kk = geo.k[0] * geo.k[1]
        cols = _workspace(slot_cols, C * kk * m * r * OW, cdt, numpy)
        self.cols = cols.reshape(C, kk, m, r, OW)
        self.geo, self.x = geo, x
        self.xs = None
        if geo.copy_x:
            size = 1
            for v in geo.buf_shape:
                size *= v
            self.xs = _workspace(slot_x, size, cdt, numpy).reshape(geo.buf_shape)
            # The borders (padding, phase tails) are never written by fill:
            # zeroed once per call, they stay zero for every sample.
            self.xs.fill(0)
        base = x if self.xs is None else self.xs
        self.views = geo.views(base, self.cols, r, -(-OH // r), self.xs is None)
        self._filled = -1

    def fill(self, i: int, mm: int, r0: int, rr: int) -> None:
        """Columns of samples ``i .. i + mm - 1``, output rows ``r0 .. r0 +
        rr - 1`` (a sample buffer is refilled only for a new sample)."""
        band = r0 // self.cols.shape[3]
        xs, x = self.xs, self.x
        for j in range(mm):
            if xs is not None and self._filled != i + j:
                self.geo.fill(xs, x[i + j])
                self._filled = i + j
            for src, dst in self.views:
                part = src[band] if xs is not None else src[i + j, band]
                dst[j, ..., :rr, :] = part[..., :rr, :]


def _plan(n: int, rows_k: int, itemsize: int, out: tuple[int, ...]) -> tuple[int, int]:
    """Samples ``m`` and output rows ``r`` per block: whole samples, ``m``
    at a time, when one sample's columns are below the target block, else
    bands of ``r`` rows of one sample (``m == 1``)."""
    OH, OW = out
    L = OH * OW
    target = max(_MIN_COLS, _BLOCK_BYTES // (rows_k * itemsize))
    if target >= L:
        # Blocks of even size, so that the threads' shares are even too.
        blocks = -(-n // max(1, min(n, round(target / L))))
        return -(-n // blocks), OH
    # Bands of about ``target`` columns, of even height.
    bands = -(-L // target)
    return 1, -(-OH // bands)


def _gemm_block(
    W2g: Any, cols: Any, dst: Any, bias: Any, ybuf: Any, direct: bool
) -> None:
    """``dst = W2g @ cols (+ bias)`` for one block and group.

    ``cols`` (K, mm * rr * OW), ``dst`` the block's (mm, Og, rr, OW) part
    of ``y``; with ``direct`` (one sample, ``y`` in the GEMM's dtype) the
    GEMM writes into ``dst`` itself, an (Og, rr * OW) matrix of row stride
    OH * OW; else into ``ybuf``, moved to ``dst`` with the bias and cast.
    """
    mm, Og, rr, OW = dst.shape
    if direct:
        d2 = dst.reshape(Og, rr * OW)
        numpy.matmul(W2g, cols, out=d2)
        if bias is not None:
            d2 += bias[:, 0]
        return
    res = ybuf[: Og * cols.shape[1]].reshape(Og, cols.shape[1])
    numpy.matmul(W2g, cols, out=res)
    res4 = res.reshape(Og, mm, rr, OW).transpose(1, 0, 2, 3)
    if bias is None:
        dst[...] = res4
    else:
        numpy.add(res4, bias, out=dst, casting="same_kind")


def conv_forward(
    x: Any,
    W: Any,
    b: Any,
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    groups: int,
    out: tuple[int, ...],
    cdt: Any,
) -> Any:
    """``y = conv(x, W) + b`` for a 2-d NumPy convolution, in ``x``'s dtype.

    Args:
        x: Input (N, C, H, W).
        W: Filter (O, C / groups, kh, kw).
        b: Bias (O,) or None.
        s, p, d: Stride, padding and dilation, pairs.
        groups: Channel groups.
        out: Output size (OH, OW); may exceed the natural one (cover-all).
        cdt: The dtype the GEMMs run in.

    Returns:
        y (N, O, OH, OW).
    """
    N, C = x.shape[:2]
    O, Cg, kh, kw = W.shape
    G, Og = groups, O // groups
    OH, OW = out
    geo = _Geometry(tuple(x.shape), (kh, kw), s, p, d, out, x.dtype != cdt)
    kk = kh * kw
    K = Cg * kk
    flat = [ky * kw + kx for ky, kx in geo.order]
    W2 = numpy.ascontiguousarray(
        W.reshape(O, Cg, kk)[:, :, flat].reshape(G, Og, K), dtype=cdt
    )
    bias = None if b is None else b.astype(cdt, copy=False).reshape(O, 1, 1)
    y = numpy.empty((N, O, OH, OW), dtype=x.dtype)
    isz = numpy.dtype(cdt).itemsize
    m, r = _plan(N, C * kk, isz, out)
    direct = x.dtype == cdt and m == 1
    blocks = [
        (i, min(m, N - i), r0, min(r, OH - r0))
        for i in range(0, N, m)
        for r0 in range(0, OH, r)
    ]

    def run(lo: int, hi: int) -> None:
        bc = _BlockColumns(geo, x, m, r, cdt, _SLOT_COLS, _SLOT_XS)
        cols = bc.cols
        ybuf = None if direct else _workspace(_SLOT_OUT, Og * m * r * OW, cdt, numpy)
        for i, mm, r0, rr in blocks[lo:hi]:
            bc.fill(i, mm, r0, rr)
            # The used (K, mm * rr * OW) of each group: a short last band
            # leaves a row stride that BLAS takes as it is.
            c4 = cols[:, :, :mm, :rr].reshape(G, K, mm, rr * OW)
            for g in range(G):
                osl = slice(g * Og, (g + 1) * Og)
                _gemm_block(
                    W2[g],
                    c4[g, :, 0] if mm == 1 else c4[g].reshape(K, mm * rr * OW),
                    y[i : i + mm, osl, r0 : r0 + rr],
                    None if bias is None else bias[osl],
                    ybuf,
                    direct,
                )

    nbytes = (C * kk * OH * OW * isz + x[0].nbytes + O * OH * OW * y.itemsize) * N
    if threads.plan(nbytes, len(blocks)) <= 1 or threads.blas_controller() is None:
        run(0, len(blocks))
    else:
        # Each block's GEMM is one thread's work: BLAS threads would fight
        # the pool's for the cores (see ``threads.blas_controller``).
        with threads.one_blas_thread():
            threads.run_split(run, len(blocks), nbytes)
    return y
