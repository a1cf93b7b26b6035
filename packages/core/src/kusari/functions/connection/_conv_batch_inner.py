"""The batch-innermost column layout of the convolution kernels.

Small feature maps use a second, batch-innermost layout: the input is first
transposed to ``(C, *spatial, N)``, so a window row copied by im2col (or added
by col2im) is ``out_w * N`` contiguous elements instead of ``out_w``; the
copies of the sample-major layout (``_conv_core``) are dominated by per-row
overhead when ``out_w`` is a handful of elements (LeNet's second layer: 8).
The price is a transpose of the input and of the output, which pays when the
columns hold many rows per transposed element (small maps, several kernel
offsets) and not for large maps with long rows.  :func:`_batch_inner` picks
the layout per call from the shapes.  That layout chunks its columns by rows
of the first spatial axis instead of by samples.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy

from kusari.functions.connection._conv_common import (
    _as_strided,
    _blocked_copy,
    _chunk,
    _deconv_pad_shape,
    _is_pointwise,
    _prod,
    _small_ufunc_buffer,
    _workspace,
    _xp,
    high_pad,
    matmul_into,
    par_apply,
    par_assign,
    par_zero,
)

# The batch-innermost layout (NumPy only, batches of at least _BI_MIN_N) is
# used when the rows that the sample-major im2col copies (or col2im adds), per
# element that the batch-innermost one transposes in and out, reach these
# ratios; fitted on LeNet, CIFAR-, AlexNet- and VGG-like layers (one thread).
_BI_MIN_N = 4
_BI_ROWS_PER_MOVED_CONV = 0.12
_BI_ROWS_PER_MOVED_DECONV = 0.04
# Tests set this to "sample" or "batch" to force one layout.
_FORCE_LAYOUT: str | None = None


def _batch_inner(xp: Any, n: int, rows: int, moved: int, ratio: float) -> bool:
    """Whether a batch of ``n`` takes the batch-innermost layout.

    ``rows``: rows (contiguous or strided runs) that the sample-major layout
    copies or adds, each costing a fixed overhead that the batch-innermost
    layout divides by ``n``; ``moved``: elements that the batch-innermost
    layout transposes in and out in exchange.
    """
    if _FORCE_LAYOUT is not None:
        return _FORCE_LAYOUT == "batch"
    return xp is numpy and n >= _BI_MIN_N and rows >= ratio * moved


def _conv_layout_is_bi(
    xp: Any,
    x_shape: tuple[int, ...],
    k: tuple[int, ...],
    s: tuple[int, ...],
    p: tuple[int, ...],
    out: tuple[int, ...],
    o_channels: int,
) -> bool:
    """Layout choice for the im2col of a convolution (forward and gW)."""
    N, C = x_shape[:2]
    if _is_pointwise(k, s, p, tuple(x_shape[2:]), out):
        rows = N * C
    else:
        rows = N * C * _prod(k) * _prod(out[:-1])
    moved = N * C * _prod(tuple(n + 2 * pp for n, pp in zip(x_shape[2:], p)))
    moved += N * o_channels * _prod(out)
    return _batch_inner(xp, N, rows, moved, _BI_ROWS_PER_MOVED_CONV)


def _to_batch_inner(
    x: Any, lo: tuple[int, ...], hi: tuple[int, ...], dtype: Any, slot: int
) -> Any:
    """``x`` (N, C, *sp) as a workspace array (C, *padded sp, N) of ``dtype``
    (the transpose, the zero padding and the cast are one copy)."""
    xp = _xp(x)
    N, C = x.shape[:2]
    sp = tuple(x.shape[2:])
    P = tuple(n + a + b for n, a, b in zip(sp, lo, hi))
    xt = _workspace(slot, C * _prod(P) * N, dtype, xp).reshape((C,) + P + (N,))
    if any(lo) or any(hi):
        par_zero(xt)
        dst = xt[(slice(None),) + tuple(slice(a, a + n) for a, n in zip(lo, sp))]
    else:
        dst = xt
    _to_batch_inner_into(x, dst)
    return xt


# Alignment (bytes) of a read stride from which NumPy's element-wise gather
# gets several times slower (the rows fall into the same cache sets).
_ALIAS_BYTES = 512
# Padding (bytes) added to such a stride by staging the source first.
_STAGE_PAD_BYTES = 64


def _to_batch_inner_into(src: Any, dst: Any) -> None:
    """``dst[...] = src`` moved from (N, *rest) to (*rest, N)."""
    if src.shape[0] > 1 and src.strides[0] % _ALIAS_BYTES == 0 and src[0].size > 1:
        # NumPy gathers along N; give the samples a non-aligned stride first.
        xp = _xp(src)
        n, m, isz = src.shape[0], src[0].size, src.itemsize
        row = m + max(1, _STAGE_PAD_BYTES // isz)
        raw = _workspace(5, n * row, src.dtype, xp)
        contiguous = tuple(
            isz * _prod(tuple(src.shape[i + 1 :])) for i in range(1, src.ndim)
        )
        stage = _as_strided(xp)(raw, shape=src.shape, strides=(row * isz,) + contiguous)
        par_assign(stage, src)
        src = stage
    par_assign(dst, src.transpose(tuple(range(1, src.ndim)) + (0,)))


def _from_batch_inner(yt: Any, y: Any) -> None:
    """Write ``yt`` (C, *sp, N) into ``y`` (N, C, *sp)."""
    nd = yt.ndim - 2
    if yt.shape[-1] > 1 and yt.strides[-2] % _ALIAS_BYTES == 0 and yt.shape[-2] > 1:
        # NumPy gathers along the last spatial axis, with stride ~N: pad it.
        xp = _xp(yt)
        n = yt.shape[-1]
        row = n + max(1, _STAGE_PAD_BYTES // yt.itemsize)
        raw = _workspace(5, yt[..., 0].size * row, yt.dtype, xp)
        stage = raw.reshape(yt.shape[:-1] + (row,))[..., :n]
        par_assign(stage, yt)
        yt = stage
    # Channels (axis 1 of y) are disjoint pieces of the blocked copy.
    par_apply(
        _blocked_copy,
        [y, yt.transpose((nd + 1, 0) + tuple(range(1, nd + 1)))],
        2 * y.size * y.itemsize,
        axis=1,
    )


def _bi_windows(
    xt: Any,
    k: tuple[int, ...],
    s: tuple[int, ...],
    d: tuple[int, ...],
    out: tuple[int, ...],
) -> Any:
    """Strided view ``(C, *k, *out, N)`` of ``xt`` (C, *padded sp, N)."""
    st = xt.strides
    sp = st[1:-1]
    shape = xt.shape[:1] + k + out + xt.shape[-1:]
    strides = (
        st[:1]
        + tuple(a * b for a, b in zip(sp, d))
        + tuple(a * b for a, b in zip(sp, s))
        + st[-1:]
    )
    return _as_strided(_xp(xt))(xt, shape=shape, strides=strides)


def _bi_row_chunks(
    per_row_elems: int, itemsize: int, rows: int
) -> list[tuple[int, int]]:
    """Split ``rows`` (the first spatial axis) so that one chunk of columns
    stays within ``_CHUNK_BYTES``."""
    r = _chunk(per_row_elems, itemsize, rows)
    return [(i, min(r, rows - i)) for i in range(0, rows, r)]


def _bi_cols(buf: Any, win: Any, r0: int, r: int, nd: int, whole: bool) -> Any:
    """Rows ``r0:r0+r`` of the windows ``win`` (C, *k, *out, N) copied into
    ``buf`` (or ``win`` itself when it is already the contiguous columns)."""
    if whole:
        return win
    part = win[(slice(None),) * (1 + nd) + (slice(r0, r0 + r),)]
    cols = buf[: part.size].reshape(part.shape)
    par_assign(cols, part)
    return cols


def _conv_forward_bi(
    x: Any,
    W2: Any,
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    k: tuple[int, ...],
    out: tuple[int, ...],
    cdt: Any,
) -> Any:
    """:func:`conv_forward` in the batch-innermost layout; returns (N, O, *out)."""
    xp = _xp(x)
    N, C = x.shape[:2]
    G, Og, K = W2.shape
    nd = len(k)
    pointwise = _is_pointwise(k, s, p, tuple(x.shape[2:]), out)
    hi = high_pad(x.shape[2:], k, s, p, d, out)
    xt = _to_batch_inner(x, p, hi, cdt, 3)
    win = _bi_windows(xt, k, s, d, out)
    rest = _prod(out[1:]) * N
    itemsize = numpy.dtype(cdt).itemsize
    chunks = (
        [(0, out[0])]
        if pointwise
        else _bi_row_chunks(C * _prod(k) * rest, itemsize, out[0])
    )
    buf = (
        None
        if pointwise
        else _workspace(0, C * _prod(k) * rest * chunks[0][1], cdt, xp)
    )
    yt = _workspace(4, G * Og * out[0] * rest, cdt, xp).reshape(G, Og, out[0], rest)
    for r0, r in chunks:
        cols = _bi_cols(buf, win, r0, r, nd, pointwise)
        res = yt[:, :, r0 : r0 + r].reshape(G, Og, r * rest)
        matmul_into(W2, cols.reshape(G, K, r * rest), res)
    y = xp.empty((N, G * Og) + out, dtype=cdt)
    _from_batch_inner(yt.reshape((G * Og,) + out + (N,)), y)
    return y


def _conv_grad_weight_bi(
    x: Any,
    gy: Any,
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    k: tuple[int, ...],
    groups: int,
    cdt: Any,
) -> Any:
    """:func:`conv_grad_weight` in the batch-innermost layout; returns gW as
    (G, K, Og)."""
    xp = _xp(x)
    N, C = x.shape[:2]
    O = gy.shape[1]
    out = tuple(gy.shape[2:])
    nd = len(k)
    G, Cg, Og = groups, C // groups, O // groups
    K = Cg * _prod(k)
    pointwise = _is_pointwise(k, s, p, tuple(x.shape[2:]), out)
    hi = high_pad(x.shape[2:], k, s, p, d, out)
    xt = _to_batch_inner(x, p, hi, cdt, 3)
    win = _bi_windows(xt, k, s, d, out)
    rest = _prod(out[1:]) * N
    itemsize = numpy.dtype(cdt).itemsize
    chunks = (
        [(0, out[0])]
        if pointwise
        else _bi_row_chunks((C * _prod(k) + O) * rest, itemsize, out[0])
    )
    buf = (
        None
        if pointwise
        else _workspace(0, C * _prod(k) * rest * chunks[0][1], cdt, xp)
    )
    gt = _workspace(1, O * rest * chunks[0][1], cdt, xp)
    lead = (slice(None), slice(None))
    gW = xp.empty((G, K, Og), dtype=cdt)
    for r0, r in chunks:
        cols = _bi_cols(buf, win, r0, r, nd, pointwise)
        g = gt[: O * r * rest].reshape((O, r) + out[1:] + (N,))
        _to_batch_inner_into(gy[lead + (slice(r0, r0 + r),)], g)
        # (K, rN) @ (rN, Og): the orientation OpenBLAS runs fastest for a
        # long inner extent (see conv_grad_weight).
        gT = g.reshape(G, Og, r * rest).swapaxes(-1, -2)
        matmul_into(cols.reshape(G, K, r * rest), gT, gW, accumulate=r0 > 0)
    return gW


def _deconv_forward_bi(
    x: Any,
    W2: Any,
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    k: tuple[int, ...],
    out: tuple[int, ...],
    cdt: Any,
) -> Any:
    """:func:`deconv_forward` in the batch-innermost layout; returns
    (N, Cout, *out)."""
    xp = _xp(x)
    N = x.shape[0]
    insz = tuple(x.shape[2:])
    nd = len(k)
    G, CKg, Cing = W2.shape
    Cout = G * CKg // _prod(k)
    y = xp.empty((N, Cout) + out, dtype=cdt)
    xt = _to_batch_inner(x, (0,) * nd, (0,) * nd, cdt, 3)
    rest = _prod(insz[1:]) * N
    x4 = xt.reshape(G, Cing, insz[0], rest)
    if _is_pointwise(k, s, p, insz, out):
        yt = _workspace(4, G * CKg * insz[0] * rest, cdt, xp)
        yt = yt.reshape(G, CKg, insz[0] * rest)
        matmul_into(W2, x4.reshape(G, Cing, insz[0] * rest), yt)
        _from_batch_inner(yt.reshape((Cout,) + out + (N,)), y)
        return y
    P = _deconv_pad_shape(out, p, insz, s, k, d)
    ypt = _workspace(2, Cout * _prod(P) * N, cdt, xp).reshape((Cout,) + P + (N,))
    par_zero(ypt)
    itemsize = numpy.dtype(cdt).itemsize
    chunks = _bi_row_chunks(G * CKg * rest, itemsize, insz[0])
    buf = _workspace(0, G * CKg * rest * chunks[0][1], cdt, xp)
    for r0, r in chunks:
        col = buf[: G * CKg * r * rest].reshape(G, CKg, r * rest)
        matmul_into(W2, x4[:, :, r0 : r0 + r].reshape(G, Cing, r * rest), col)
        col = col.reshape((Cout,) + k + (r,) + insz[1:] + (N,))
        _col2im_add_bi(col, ypt, k, s, d, (r,) + insz[1:], r0)
    crop = (slice(None),) + tuple(slice(pp, pp + o) for pp, o in zip(p, out))
    _from_batch_inner(ypt[crop], y)
    return y


def _col2im_add_bi(
    col: Any,
    ypt: Any,
    k: tuple[int, ...],
    s: tuple[int, ...],
    d: tuple[int, ...],
    insz: tuple[int, ...],
    row0: int,
) -> None:
    """``ypt[:, s*(i + row0) + d*kk, :] += col[:, kk, i, :]`` for ``col``
    (C, *k, *insz, N) and ``ypt`` (C, *padded out, N), ``row0`` being the
    first input row (first spatial axis) that ``col`` holds."""
    # Channels (axis 0) write disjoint parts of ypt.
    par_apply(
        lambda c, y: _col2im_add_bi_serial(c, y, k, s, d, insz, row0),
        [col, ypt],
        2 * col.size * col.itemsize,
        axis=0,
        one_range_per_thread=True,
    )


def _col2im_add_bi_serial(
    col: Any,
    ypt: Any,
    k: tuple[int, ...],
    s: tuple[int, ...],
    d: tuple[int, ...],
    insz: tuple[int, ...],
    row0: int,
) -> None:
    nd = len(k)
    starts = (row0 * s[0],) + (0,) * (nd - 1)
    with _small_ufunc_buffer(ypt):
        for off in itertools.product(*[range(v) for v in k]):
            sl = tuple(
                slice(b + o * dd, b + o * dd + (n - 1) * st + 1, st)
                for b, o, dd, n, st in zip(starts, off, d, insz, s)
            )
            ypt[(slice(None),) + sl] += col[(slice(None),) + off]
