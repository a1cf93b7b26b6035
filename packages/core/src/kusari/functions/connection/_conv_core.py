"""Array-level kernels shared by the convolution family (N-d, device agnostic).

The forward of a convolution is ``im2col`` as one strided view of the padded
input followed by one batched GEMM; the transposed convolution (the input
gradient of a convolution) is one batched GEMM followed by ``col2im``, a
scatter-add with one vectorised add per kernel offset.  Work is split into
chunks of whole samples so that the column buffer stays cache sized.

3x3 stride-1 convolutions with enough channels and pixels (NumPy) take the
Winograd kernels of ``_winograd`` instead, in all three passes: the forward,
the transposed convolution (the input gradient) and the weight gradient;
``_winograd.applicable`` holds the measured rule.

The other 2-d forwards on NumPy (not 1x1, not batch-innermost) with output
planes of 256 pixels or more go through ``_conv_fused``: columns, GEMM and
bias per cache-sized block, the blocks split over the intra-op threads.
Their weight gradients (kernels larger than 1x1) go through
``_conv_fused_bwd`` in the same blocks, summed in a fixed order; transposed
convolutions of large planes (most input gradients of those layers) run one
sample per thread there.

Strided convolutions whose kernel is a multiple of the stride and whose
phase-split form has small samples (the DQN's first layer) become stride-1
ones on the input's stride phases (``_conv_s2d``; forward and weight
gradient).  Forwards and weight gradients whose
samples have few columns over planes of 256 pixels or more (LeNet's and
CIFAR nets' first layers) run in blocks of samples with one GEMM per sample
(``_conv_sm_blocks``).

1x1 kernels without padding go through ``_conv_pointwise`` where the
per-sample GEMM below does not take them, as do all their weight gradients;
GEMMs of the column loops run as blocks on the intra-op threads (``matmul_into``).

Small feature maps use a second, batch-innermost layout (``_conv_batch_inner``,
which also holds the cost model that picks the layout per call; its small
samples run in blocks of samples, one thread each, in ``_conv_bi_blocks``); the
scratch buffers, chunking and copy helpers the layouts share are in ``_conv_common``.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy

from kusari.functions._params import as_tuple as as_tuple  # re-exported
from kusari.functions.connection import (
    _conv_bi_blocks,
    _conv_fused,
    _conv_fused_bwd,
    _conv_gpu,
    _conv_pointwise,
    _conv_s2d,
    _conv_sm_blocks,
    _winograd,
)
from kusari.functions.connection._conv_batch_inner import (
    _BI_ROWS_PER_MOVED_DECONV,
    _batch_inner,
    _conv_layout_is_bi,
)
from kusari.functions.connection._conv_common import (
    _chunk,
    _deconv_pad_shape,
    _is_pointwise,
    _prod,
    _small_ufunc_buffer,
    _workspace,
    _xp,
    filter_from_kog,
    high_pad,
    matmul_into,
    par_apply,
    par_assign,
    par_zero,
    transposed_filter,
)
from kusari.functions.connection._conv_common import (  # re-exported for callers
    clear_workspace as clear_workspace,
)
from kusari.functions.connection._conv_common import (
    pad_input as pad_input,
)
from kusari.functions.connection._conv_common import (
    window_view as window_view,
)
from kusari.utils import threads

# Input planes of a transposed convolution at least this large use one GEMM
# per sample (no transposes); measured no slower and it needs less memory.
_LARGE_L = 4096
# A 1x1 convolution (stride 1, no pad) on planes of at least this many
# pixels is one GEMM per sample on the input as it lies, no copy: ResNet-50's
# 1x1 layers at 56x56 and 14x14 run 1.3-1.9x faster than through the column
# buffer; at 7x7 the per-sample GEMMs are too thin and the columns win.
_POINTWISE_GEMM_L = 128


def compute_dtype(dtype: Any, xp: Any) -> Any:
    """float16 is computed in float32: OpenBLAS has no half GEMM, and on GPU the
    col2im gather would otherwise sum in half precision."""
    if dtype == numpy.float16:
        return numpy.dtype(numpy.float32)
    return dtype


def _col_source(
    x: Any,
    k: tuple[int, ...],
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    out: tuple[int, ...],
) -> tuple[Any, bool]:
    """Return (view (N, C, *k, *out), is_pointwise)."""
    if _is_pointwise(k, s, p, tuple(x.shape[2:]), out):
        return x.reshape(x.shape[:2] + k + out), True
    hi = high_pad(x.shape[2:], k, s, p, d, out)
    xpad = pad_input(x, p, hi)
    return window_view(xpad, k, s, d, out), False


def _fill_cols(buf: Any, src: Any, i: int, m: int, nd: int) -> Any:
    """Copy samples ``i:i+m`` of ``src`` (N, C, *k, *out) into ``buf`` laid out
    ``(C, *k, m, *out)``; returns the filled part of ``buf``."""
    perm = (1,) + tuple(range(2, 2 + nd)) + (0,) + tuple(range(2 + nd, 2 + 2 * nd))
    view = buf.reshape(-1)[: src[0:1].size * m].reshape(
        src.shape[1 : 2 + nd] + (m,) + src.shape[2 + nd :]
    )
    par_assign(view, src[i : i + m].transpose(perm))
    return view


def conv_forward(
    x: Any,
    W: Any,
    b: Any,
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    groups: int,
    out: tuple[int, ...],
) -> Any:
    """``y[n, o] = sum_{c, k} W[o, c, k] x_pad[n, c, s*out + d*k] (+ b)``.

    Per chunk of ``m`` samples the columns are laid out ``(C*k, m*L)`` so that
    each group is one GEMM ``(Og, K) @ (K, m*L)`` with a long inner extent.
    """
    xp = _xp(x)
    N, C = x.shape[:2]
    O = W.shape[0]
    k = tuple(W.shape[2:])
    nd = len(k)
    cdt = compute_dtype(x.dtype, xp)
    Cg, Og = C // groups, O // groups
    K = Cg
    for v in k:
        K *= v
    L = 1
    for v in out:
        L *= v
    if _conv_s2d.worth(xp, tuple(x.shape), k, s, d, out, cdt):
        xq = _conv_s2d.split_input(x, k, s, p, d, out)
        Wq = _conv_s2d.split_filter(W, s)
        return conv_forward(xq, Wq, b, (1,) * nd, (0,) * nd, d, groups, out)
    if xp is numpy and _winograd_fits(x.shape, k, s, p, d, groups, O, out):
        return _finish(_winograd.conv_forward(x, W, p, cdt), b, x.dtype)
    W2 = xp.ascontiguousarray(W.reshape(groups, Og, K), dtype=cdt)
    if xp is not numpy and nd == 2:
        y = _conv_gpu.conv_forward(x, W2, s, p, d, k, out, cdt)
        return _finish(y, b, x.dtype)
    if (
        L >= _POINTWISE_GEMM_L
        and x.dtype == cdt
        and _is_pointwise(k, s, p, tuple(x.shape[2:]), out)
    ):
        # (G, Og, K) @ (N, G, K, L): the output is already (N, O, *out).
        y = _per_sample_gemm(W2, x.reshape(N, groups, K, L))
        return _finish(y.reshape((N, O) + out), b, x.dtype)
    if _conv_pointwise.applicable(xp, k, p, tuple(x.shape[2:]), out, s):
        y = _conv_pointwise.conv_forward(x, W2, s, out, cdt)
        return _finish(y, b, x.dtype)
    if _conv_sm_blocks.applicable(xp, tuple(x.shape), k, s, p, out, cdt):
        y = _conv_sm_blocks.conv_forward(x, W2, b, s, p, d, k, out, cdt)
        return _finish(y, None, x.dtype)
    if _conv_layout_is_bi(xp, tuple(x.shape), k, s, p, out, O):
        y, b = _conv_bi_blocks.conv_forward(x, W2, b, s, p, d, k, out, cdt)
        return _finish(y, b, x.dtype)
    if _conv_fused.applicable(xp, nd, out):
        return _conv_fused.conv_forward(x, W, b, s, p, d, groups, out, cdt)
    src, pointwise = _col_source(x, k, s, p, d, out)
    if pointwise and N == 1:
        y = xp.matmul(W2, src.reshape(groups, K, L).astype(cdt, copy=False))
    else:
        y = xp.empty((N, groups, Og, L), dtype=cdt)
        n = _chunk(groups * K * L, numpy.dtype(cdt).itemsize, N)
        buf = _workspace(0, groups * K * L * n, cdt, xp)
        rbuf = _workspace(4, O * L * n, cdt, xp)
        for i in range(0, N, n):
            m = min(n, N - i)
            cols = _fill_cols(buf, src, i, m, nd)
            r = rbuf[: O * m * L].reshape(groups, Og, m * L)
            matmul_into(W2, cols.reshape(groups, K, m * L), r)
            par_assign(y[i : i + m], r.reshape(groups, Og, m, L).transpose(2, 0, 1, 3))
    return _finish(y.reshape((N, O) + out), b, x.dtype)


def _per_sample_gemm(W2: Any, x4: Any) -> Any:
    """``W2 @ x4`` for ``W2`` (G, Og, K) and ``x4`` (N, G, K, L), one GEMM
    per sample and group.

    On NumPy with several threads the samples are split over the intra-op
    pool, each GEMM on one BLAS thread: one hand-off per call instead of a
    wake-up of the BLAS threads per sample, and the thin GEMMs of small
    planes (ResNet-50's 1x1 layers at 14x14) are not cut further.
    """
    if not isinstance(x4, numpy.ndarray):
        return _xp(x4).matmul(W2, x4)
    N, G, K, L = x4.shape
    Og = W2.shape[1]
    dtype = numpy.result_type(W2, x4)
    nbytes = x4.nbytes + N * G * Og * L * dtype.itemsize
    if threads.plan(nbytes, N) <= 1 or threads.blas_controller() is None:
        return numpy.matmul(W2, x4)
    y = numpy.empty((N, G, Og, L), dtype=dtype)

    def run(lo: int, hi: int) -> None:
        numpy.matmul(W2, x4[lo:hi], out=y[lo:hi])

    with threads.one_blas_thread():
        threads.run_split(run, N, nbytes)
    return y


def _winograd_fits(
    x_shape: tuple[int, ...],
    k: tuple[int, ...],
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    groups: int,
    o_channels: int,
    out: tuple[int, ...],
) -> bool:
    """Whether the convolution ``x_shape -> (N, o_channels, *out)`` (NumPy)
    runs as Winograd (see ``_winograd.applicable``)."""
    natural = len(out) == 2 and all(
        o == n + 2 * pp - 2 for o, n, pp in zip(out, x_shape[2:], p)
    )
    return _winograd.applicable(
        k, s, d, groups, x_shape[0], (x_shape[1], o_channels), out, natural
    )


def _finish(y: Any, b: Any, dtype: Any) -> Any:
    """Add the bias (per channel, axis 1) and cast back to ``dtype``."""
    if b is not None:
        bb = b.reshape((1, -1) + (1,) * (y.ndim - 2)).astype(y.dtype, copy=False)
        # In place, split by sample over the intra-op threads when large.
        par_apply(lambda part: _add_to(part, bb), [y], 2 * y.nbytes, axis=0)
    if y.dtype != dtype:
        if isinstance(y, numpy.ndarray):
            out = numpy.empty(y.shape, dtype=dtype)
            par_assign(out, y)
            return out
        y = y.astype(dtype)
    return y


def _add_to(a: Any, b: Any) -> None:
    a += b


def conv_grad_weight(
    x: Any,
    gy: Any,
    w_shape: tuple[int, ...],
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    groups: int,
) -> Any:
    """``gW[o, c, k] = sum_{n, out} gy[n, o, out] x_pad[n, c, s*out + d*k]``."""
    xp = _xp(x)
    N, C = x.shape[:2]
    O = gy.shape[1]
    k = tuple(w_shape[2:])
    nd = len(k)
    out = tuple(gy.shape[2:])
    cdt = compute_dtype(x.dtype, xp)
    Cg, Og = C // groups, O // groups
    K = Cg
    for v in k:
        K *= v
    L = 1
    for v in out:
        L *= v
    if _conv_s2d.worth(xp, tuple(x.shape), k, s, d, out, cdt):
        xq = _conv_s2d.split_input(x, k, s, p, d, out)
        wq = (O, xq.shape[1] // groups) + tuple(a // b for a, b in zip(k, s))
        gq = conv_grad_weight(xq, gy, wq, (1,) * nd, (0,) * nd, d, groups)
        return _conv_s2d.merge_filter(gq, w_shape, s)
    if xp is numpy and _winograd_fits(x.shape, k, s, p, d, groups, O, out):
        gW = _winograd.conv_grad_weight(x, gy, p, cdt)
        return gW.astype(x.dtype, copy=False)
    if xp is not numpy and nd == 2:
        gW = _conv_gpu.conv_grad_weight(x, gy, groups, s, p, d, k, cdt)
        return gW.reshape(w_shape).astype(x.dtype, copy=False)
    if _conv_pointwise.applicable(xp, k, p, tuple(x.shape[2:]), out, s):
        gW = _conv_pointwise.conv_grad_weight(x, gy, s, groups, cdt)
        return filter_from_kog(gW, w_shape, x.dtype)
    if _conv_sm_blocks.applicable(xp, tuple(x.shape), k, s, p, out, cdt):
        gW = _conv_sm_blocks.conv_grad_weight(x, gy, s, p, d, k, groups, cdt)
        return gW.astype(x.dtype, copy=False)
    if _conv_layout_is_bi(xp, tuple(x.shape), k, s, p, out, O):
        gW = _conv_bi_blocks.conv_grad_weight(x, gy, s, p, d, k, groups, cdt)
        return filter_from_kog(gW, w_shape, x.dtype)
    if _conv_fused_bwd.applicable(xp, k, out):
        gW = _conv_fused_bwd.conv_grad_weight(x, gy, k, s, p, d, groups, cdt)
        return gW.astype(x.dtype, copy=False)
    gy4 = gy.reshape(N, groups, Og, L)
    src, _ = _col_source(x, k, s, p, d, out)
    n = _chunk(groups * K * L, numpy.dtype(cdt).itemsize, N)
    buf = _workspace(0, groups * K * L * n, cdt, xp)
    gbuf = _workspace(1, groups * Og * L * n, cdt, xp)
    gW = xp.empty((groups, K, Og), dtype=cdt)
    for i in range(0, N, n):
        m = min(n, N - i)
        cols = _fill_cols(buf, src, i, m, nd).reshape(groups, K, m * L)
        g = gbuf[: groups * Og * m * L].reshape(groups, Og, m, L)
        par_assign(g, gy4[i : i + m].transpose(1, 2, 0, 3))
        # (K, mL) @ (mL, Og): OpenBLAS is several times faster in this
        # orientation than (Og, mL) @ (mL, K) for a long inner extent.
        gT = g.reshape(groups, Og, m * L).swapaxes(-1, -2)
        matmul_into(cols, gT, gW, accumulate=i > 0)
    return filter_from_kog(gW, w_shape, x.dtype)


def col2im_add(
    col: Any,
    ypad: Any,
    k: tuple[int, ...],
    s: tuple[int, ...],
    d: tuple[int, ...],
    insz: tuple[int, ...],
) -> None:
    """``ypad[:, :, s*i + d*kk] += col[:, :, kk, i]`` (one add per kernel offset)."""
    nbytes = 2 * col.size * col.itemsize
    # Samples (axis 0) or channels (axis 1) write disjoint parts of ypad.
    axis = 0 if col.shape[0] >= col.shape[1] else 1
    par_apply(
        lambda c, yp: _col2im_add_serial(c, yp, k, s, d, insz),
        [col, ypad],
        nbytes,
        axis,
        one_range_per_thread=True,
    )


def _col2im_add_serial(
    col: Any,
    ypad: Any,
    k: tuple[int, ...],
    s: tuple[int, ...],
    d: tuple[int, ...],
    insz: tuple[int, ...],
) -> None:
    nd = len(k)
    lead = (slice(None), slice(None))
    with _small_ufunc_buffer(ypad):
        for off in itertools.product(*[range(v) for v in k]):
            sl = tuple(
                slice(o * dd, o * dd + (n - 1) * st + 1, st)
                for o, dd, n, st in zip(off, d, insz, s)
            )
            ypad[lead + sl] += col[lead + off + (slice(None),) * nd]


def deconv_forward(
    x: Any,
    W: Any,
    b: Any,
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    groups: int,
    out: tuple[int, ...],
) -> Any:
    """Transposed convolution: ``col = W^T x`` (one GEMM per group and chunk,
    inner extent ``m * L_in``) then ``col2im`` into ``out``."""
    xp = _xp(x)
    N, Cin = x.shape[:2]
    insz = tuple(x.shape[2:])
    k = tuple(W.shape[2:])
    nd = len(k)
    Coutg = W.shape[1]
    Cout = Coutg * groups
    Cing = Cin // groups
    cdt = compute_dtype(x.dtype, xp)
    Kk = 1
    for v in k:
        Kk *= v
    Lin = 1
    for v in insz:
        Lin *= v
    # A stride-1 transposed convolution is the convolution of out (N, Cout)
    # into in (N, Cin): the same Winograd rule, from the other side.
    if xp is numpy and _winograd_fits(
        (N, Cout) + tuple(out), k, s, p, d, groups, Cin, insz
    ):
        return _finish(_winograd.deconv_forward(x, W, p, out, cdt), b, x.dtype)
    W2 = transposed_filter(W.reshape(groups, Cing, Coutg * Kk), cdt)
    if xp is not numpy and nd == 2:
        y = _conv_gpu.deconv_forward(x, W2, Cout, s, p, d, k, out, cdt)
        return _finish(y, b, x.dtype)
    pointwise = _is_pointwise(k, s, p, insz, out)
    if pointwise and Lin >= _POINTWISE_GEMM_L and x.dtype == cdt:
        # The adjoint of conv_forward's plain GEMM for 1x1 kernels.
        y = _per_sample_gemm(W2, x.reshape(N, groups, Cing, Lin))
        return _finish(y.reshape((N, Cout) + out), b, x.dtype)
    if _conv_pointwise.applicable(xp, k, p, tuple(out), insz, s):
        y = _conv_pointwise.deconv_forward(x, W2, s, out, cdt)
        return _finish(y, b, x.dtype)
    per_sample = not pointwise and (
        Lin >= _LARGE_L or _conv_fused_bwd.strided_per_sample(xp, s, Lin, N)
    )
    # Sample-major col2im adds rows of insz[-1] elements.
    rows = 0 if pointwise else N * Cout * Kk * (Lin // insz[-1])
    moved = N * (Cin * Lin + Cout * _prod(out))
    bi = _batch_inner(xp, N, rows, moved, _BI_ROWS_PER_MOVED_DECONV)
    if not per_sample and bi:
        y = _conv_bi_blocks.deconv_forward(x, W2, s, p, d, k, out, cdt)
        return _finish(y, b, x.dtype)
    # One sample per thread needs a sample for every thread; with fewer (a
    # decoder at batch 1) the loop below splits each col2im by channel.
    if per_sample and _conv_fused_bwd.per_sample_applicable(xp, N):
        y = _conv_fused_bwd.deconv_per_sample(x, W2, Cout, s, p, d, k, out, cdt)
        return _finish(y, b, x.dtype)
    x4 = x.reshape(N, groups, Cing, Lin)
    n = 1 if per_sample else _chunk(Cout * Kk * Lin, numpy.dtype(cdt).itemsize, N)
    y = xp.empty((N, Cout) + out, dtype=cdt)
    cbuf = _workspace(4, Cout * Kk * Lin * n, cdt, xp)
    if not pointwise:
        # Padded output region that every window write lands in.
        P = _deconv_pad_shape(out, p, insz, s, k, d)
        ypad = _workspace(2, n * Cout * _prod(P), cdt, xp).reshape((n, Cout) + P)
        crop = (slice(None), slice(None)) + tuple(
            slice(pp, pp + o) for pp, o in zip(p, out)
        )
    if per_sample:
        # Long rows: one GEMM per sample on x as it is (no transposes).
        for i in range(N):
            col = cbuf.reshape(groups, Coutg * Kk, Lin)
            xp.matmul(W2, x4[i].astype(cdt, copy=False), out=col)
            par_zero(ypad)
            col2im_add(col.reshape((1, Cout) + k + insz), ypad, k, s, d, insz)
            par_assign(y[i], ypad[crop][0])
    else:
        xbuf = _workspace(0, groups * Cing * Lin * n, cdt, xp)
        for i in range(0, N, n):
            m = min(n, N - i)
            xt = xbuf[: groups * Cing * m * Lin].reshape(groups, Cing, m, Lin)
            par_assign(xt, x4[i : i + m].transpose(1, 2, 0, 3))
            col = cbuf[: Cout * Kk * m * Lin].reshape(groups, Coutg * Kk, m * Lin)
            matmul_into(W2, xt.reshape(groups, Cing, m * Lin), col)
            # (Cout, *k, m, *in) -> view as (m, Cout, *k, *in)
            col = col.reshape((Cout,) + k + (m,) + insz)
            col = col.transpose(
                (nd + 1, 0) + tuple(range(1, nd + 1)) + tuple(range(nd + 2, 2 * nd + 2))
            )
            if pointwise:
                par_assign(y[i : i + m], col.reshape((m, Cout) + out))
                continue
            yp = ypad[:m]
            par_zero(yp)
            col2im_add(col, yp, k, s, d, insz)
            par_assign(y[i : i + m], yp[crop])
    return _finish(y, b, x.dtype)
