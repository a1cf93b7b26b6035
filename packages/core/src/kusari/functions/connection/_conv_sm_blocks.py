"""Convolutions whose samples have few columns: im2col, one GEMM per sample
and bias in blocks of samples, one thread per block.

A first layer (LeNet's 1 -> 20 channels, 5x5 on 28x28; a CIFAR net's 3 ->
32, 3x3 on 32x32) has a short column axis ``K = C * prod(k)`` over a
plane of hundreds of pixels: a sample's columns take tens of kB, and its
product ``(O, K) @ (K, L)`` is a GEMM of its own with a long inner extent.
Here the batch is cut into blocks of samples whose columns take about
``_BLOCK_BYTES``; a block is one strided copy of its windows into columns
``(m, C, *k, *out)``, one batched GEMM that writes each sample's product
straight into the output ``(N, O, *out)`` (no transpose) and one bias add:
four NumPy calls per block whatever its size.  The fused path
(``_conv_fused``), built for large planes, cut such a layer into blocks
of ten samples with one copy per sample and a transpose of each product;
on two threads its many small calls took turns at the GIL.

The weight gradient runs on the same blocks: one batched GEMM ``cols[n] @
gy[n]^T`` of shape ``(m, K, O)`` per block, summed over the block's
samples into the block's partial sum; the partial sums are added in block
order and transposed into the filter's layout ``(O, C / G, *k)``.

LeNet's first layer, batch 100, best of 40 on a loaded machine (one thread |
two): forward 2.5 | 2.0 ms -> 1.7 | 0.9 ms, weight gradient 2.3 | 3.4 ms ->
1.55 | 0.8 ms (PyTorch 1.7 | 1.0 and 1.6 | 0.7).

The blocks follow from the shapes alone, so the bits do not depend on the
thread count.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari.functions.connection._conv_common import (
    _as_strided,
    _is_pointwise,
    _prod,
    _workspace,
    high_pad,
)
from kusari.utils import threads

# Tests set this to False to take the older paths.
ENABLED = True
# Columns of one sample, at most, for this path: beyond it a block holds
# too few samples to stay in a core's cache (the fused path cuts large
# samples into bands of rows instead).
_MAX_SAMPLE_BYTES = 512 << 10
# Output pixels per sample, at least: the per-sample GEMM's inner extent
# must be long for BLAS (smaller planes go batch-innermost).
_MIN_L = 256
# Bytes of columns a block targets (about a core's L2 cache), and the
# block count bounds: at least _MIN_BLOCKS so that two or four threads
# get even shares, at most _MAX_BLOCKS partial weight gradients.
_BLOCK_BYTES = 1 << 20
_MIN_BLOCKS = 4
_MAX_BLOCKS = 64
# Workspace slots (``_conv_common``'s users take 0..5, ``_winograd``
# 10..15, ``_conv_fused``/``_bwd`` 20..28, ``_conv_bi_blocks`` 30..34).
_SLOT_X, _SLOT_COLS, _SLOT_PROD = 40, 41, 42


def applicable(
    xp: Any,
    x_shape: tuple[int, ...],
    k: tuple[int, ...],
    s: tuple[int, ...],
    p: tuple[int, ...],
    out: tuple[int, ...],
    cdt: Any,
) -> bool:
    """Whether a NumPy convolution of ``x_shape`` to planes ``out`` with
    kernel ``k`` runs here: not 1x1-pointwise, planes of ``_MIN_L`` pixels
    or more, a sample's columns of ``_MAX_SAMPLE_BYTES`` at most.

    Args:
        xp: The array module.
        x_shape: Input shape (N, C, *sp).
        k, s, p: Kernel size, stride and padding.
        out: Output size.
        cdt: The dtype the GEMMs run in.

    Returns:
        Whether :func:`conv_forward` / :func:`conv_grad_weight` apply.
    """
    if not ENABLED or xp is not numpy or x_shape[0] < 2:
        return False
    L = _prod(out)
    if L < _MIN_L or _is_pointwise(k, s, p, tuple(x_shape[2:]), out):
        return False
    sample_bytes = x_shape[1] * _prod(k) * L * numpy.dtype(cdt).itemsize
    return sample_bytes <= _MAX_SAMPLE_BYTES


def blocks(n: int, sample_bytes: int) -> list[tuple[int, int]]:
    """Sample ranges ``(start, stop)`` of the blocks of a batch of ``n``
    whose columns take ``sample_bytes`` per sample; from the shapes alone.

    Args:
        n: Batch size.
        sample_bytes: Bytes of one sample's columns.

    Returns:
        Contiguous ranges covering ``0..n``, as even as possible.
    """
    count = -(-n * sample_bytes // _BLOCK_BYTES)
    count = min(n, _MAX_BLOCKS, max(_MIN_BLOCKS, count))
    return threads.split(n, count)


class _Windows:
    """How one call reads the columns of a block of samples.

    ``view(a, e)`` is the strided view ``(m, C, *k, *out)`` of samples
    ``a .. e - 1``: of ``x`` itself when it needs no padding, else of a
    zero-bordered per-thread copy of the block (its borders zeroed once
    per thread and call, as every block writes the same interior).
    """

    def __init__(
        self,
        x: Any,
        k: tuple[int, ...],
        s: tuple[int, ...],
        p: tuple[int, ...],
        d: tuple[int, ...],
        out: tuple[int, ...],
        cdt: Any,
        mb: int,
    ) -> None:
        self.x, self.k, self.s, self.d, self.out = x, k, s, d, out
        sp = tuple(x.shape[2:])
        hi = high_pad(sp, k, s, p, d, out)
        self.padded = any(p) or any(hi)
        self.P = tuple(n + a + b for n, a, b in zip(sp, p, hi))
        self.inner = (slice(None), slice(None)) + tuple(
            slice(a, a + n) for a, n in zip(p, sp)
        )
        self.cdt, self.mb = cdt, mb

    def buffer(self) -> Any:
        """This thread's zeroed padded buffer (None when unpadded)."""
        if not self.padded:
            return None
        C = self.x.shape[1]
        raw = _workspace(_SLOT_X, self.mb * C * _prod(self.P), self.cdt, numpy)
        buf = raw.reshape((self.mb, C) + self.P)
        buf.fill(0)
        return buf

    def view(self, buf: Any, a: int, e: int) -> Any:
        src = self.x[a:e]
        if buf is not None:
            src = buf[: e - a]
            src[self.inner] = self.x[a:e]
        st = src.strides
        sp = st[2:]
        shape = src.shape[:2] + self.k + self.out
        strides = (
            st[:2]
            + tuple(v * dd for v, dd in zip(sp, self.d))
            + tuple(v * ss for v, ss in zip(sp, self.s))
        )
        return _as_strided(numpy)(src, shape=shape, strides=strides)


def _cols(win: Any, m: int, cdt: Any) -> Any:
    """The windows ``win`` copied (and cast) into this thread's columns."""
    raw = _workspace(_SLOT_COLS, win.size, cdt, numpy)
    cols = raw.reshape(win.shape)
    cols[...] = win
    return cols


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
) -> Any:
    """A convolution, blocks of samples on the intra-op threads.

    Args:
        x: Input (N, C, *sp) (any strides).
        W2: Filter as (G, O / G, C / G * prod(k)) in ``cdt``.
        b: Bias (O,) or None.
        s, p, d: Stride, padding and dilation.
        k: Kernel size.
        out: Output size.
        cdt: The dtype the GEMMs run in.

    Returns:
        y (N, O, *out) in ``cdt``, bias added.
    """
    N, C = x.shape[:2]
    G, Og, K = W2.shape
    O = G * Og
    L = _prod(out)
    isz = numpy.dtype(cdt).itemsize
    ranges = blocks(N, C * _prod(k) * L * isz)
    mb = max(e - a for a, e in ranges)
    win = _Windows(x, k, s, p, d, out, cdt, mb)
    y = numpy.empty((N, O) + tuple(out), dtype=cdt)
    bias = None
    if b is not None:
        bias = b.astype(cdt, copy=False).reshape(1, G, Og, 1)

    def run(lo: int, hi: int) -> None:
        buf = win.buffer()
        for a, e in ranges[lo:hi]:
            m = e - a
            cols = _cols(win.view(buf, a, e), m, cdt)
            dst = y[a:e].reshape(m, G, Og, L)
            numpy.matmul(W2, cols.reshape(m, G, K, L), out=dst)
            if bias is not None:
                dst += bias

    nbytes = N * (C * _prod(k) + O) * L * isz + x.nbytes
    with threads.one_blas_thread():
        threads.run_split(run, len(ranges), nbytes)
    return y


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
    """The weight gradient of a convolution on the blocks of
    :func:`conv_forward`, partial sums per block added in block order.

    Args:
        x: Input (N, C, *sp) (any strides).
        gy: Output gradient (N, O, *out) (any strides).
        s, p, d: Stride, padding and dilation.
        k: Kernel size.
        groups: Channel groups.
        cdt: The dtype the GEMMs and the sums run in.

    Returns:
        gW (O, C / groups, *k) in ``cdt``.
    """
    N, C = x.shape[:2]
    O = gy.shape[1]
    out = tuple(gy.shape[2:])
    G = groups
    Og, K = O // G, C // G * _prod(k)
    L = _prod(out)
    isz = numpy.dtype(cdt).itemsize
    ranges = blocks(N, C * _prod(k) * L * isz)
    mb = max(e - a for a, e in ranges)
    win = _Windows(x, k, s, p, d, out, cdt, mb)
    gy4 = gy.reshape(N, G, Og, L)
    partial = numpy.empty((len(ranges), G, K, Og), dtype=cdt)

    def run(lo: int, hi: int) -> None:
        buf = win.buffer()
        for i in range(lo, hi):
            a, e = ranges[i]
            m = e - a
            cols = _cols(win.view(buf, a, e), m, cdt).reshape(m, G, K, L)
            prod = _workspace(_SLOT_PROD, m * G * K * Og, cdt, numpy)
            prod = prod.reshape(m, G, K, Og)
            g = gy4[a:e].astype(cdt, copy=False)
            # (K, L) @ (L, Og) per sample: OpenBLAS ran this orientation 25%
            # faster than (Og, L) @ (L, K) on the DQN's first layer.
            numpy.matmul(cols, g.swapaxes(-1, -2), out=prod)
            # In sample order, whichever thread runs the block.
            numpy.sum(prod, axis=0, out=partial[i])

    nbytes = N * (C * _prod(k) + O) * L * isz + x.nbytes
    with threads.one_blas_thread():
        threads.run_split(run, len(ranges), nbytes)
    total = partial[0]
    for i in range(1, len(ranges)):  # in block order: the same bits anywhere
        total += partial[i]
    # (G, K, Og) -> (O, C / G, *k), W's layout.
    gW = numpy.empty((G, Og, K), dtype=cdt)
    gW[...] = total.swapaxes(-1, -2)
    return gW.reshape((O, C // G) + tuple(k))
