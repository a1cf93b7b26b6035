"""NumPy GEMMs cut into blocks on kusari's thread pool, BLAS at one thread.

With BLAS threaded, OpenBLAS's idle workers spin-wait after every GEMM and
take the cores that kusari's pool needs for the element-wise work between
GEMMs (pooling, ReLU, batch normalization), and a GEMM threaded by BLAS
scaled poorly on the thin products of the convolution kernels.  Here a
large product is cut into blocks of output rows or columns, each one pool
thread's single-threaded BLAS call, handed to the pool at once.  Linear,
2-d ``matmul`` (:func:`matmul`) and the convolution kernels' column GEMMs
(:func:`matmul_into`, batched over groups, with an accumulating form for
weight gradients) share this one block rule, :func:`blocks`.

The blocks depend on the shapes only, never on the thread count.  A
single-thread pool runs a product that would be cut as one BLAS call on one
BLAS thread instead: the blocks cost the repacking of the operand they
share, 0-5 % at one thread on the MLP, LeNet and ResNet-50 shapes in two to
four blocks of at least ``MIN_BLOCK_LEN`` (the MLP's SGD step 5 % slower in
all).  The bits are the same either way: a block cuts only output rows or
columns, so each element is the same sum over the contracted axis, and
single-threaded OpenBLAS blocks that sum by sizes of its own, not by the
extent cut (its small-matrix kernels take products far below
``MIN_BLOCK_WORK``); the tests check it on products of real size.  (A
threaded OpenBLAS does not give those bits: it blocks the sum by the
share of each of its threads.)
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import numpy

from kusari.utils import threads

# Multiply-adds a product needs before it is split, and that a block gets at
# least. One core does some 20-60 multiply-adds per ns in a float32 GEMM, so
# a block of 2**21 takes 35-100 us, above the few microseconds of a hand-off
# and of repacking the smaller operand.
MIN_BLOCK_WORK = 1 << 21

# Multiply-adds above which a product is left to BLAS's own threads: there
# the packing repeated per block costs more than the spin-waits it avoids
# (2 threads, float32: 2048^3 ties, 4096^3 split 15 % slower; 1024^3 and
# below, the blocks win).
MAX_SPLIT_WORK = 1 << 32

# Blocks per product at most: enough that a thread whose core is taken (by
# another process) leaves part of its share to the others; each block packs
# the operand it shares with the others again (2 threads, MLP and LeNet
# steps: 4 blocks a little faster than 8).  The count is a power of two, so
# that two or four threads get even shares.
MAX_BLOCKS = 4

# Blocks per 2-d product (:func:`matmul`: Linear, ``F.matmul``) at most. The
# MLP's SGD step at two threads, best of 20 interleaved rounds, four runs:
# two blocks 7.4-8.3 ms against four 7.9-8.6 ms (3-10 % faster; medians
# 1-3 %): a layer's GEMMs are a few hundred microseconds each, and every
# extra block repacks the shared operand.
MAX_MATMUL_BLOCKS = 2

# Rows (or columns) a block gets at least. Every block repacks the operand
# the blocks share; at one thread, LeNet's 800 -> 500 layer in four blocks
# of 125 columns ran 4-7 % slower than one GEMM, in two of 250 2-4 %; the
# MLP's 1000-wide layers in four of 250 and ResNet-50's 784-pixel 1x1 / 3x3
# layers in two of 392 0-5 %, in four of 196 3-8 %.
MIN_BLOCK_LEN = 240

# A block's rows (or columns) are a multiple of this, the widest BLAS
# micro-kernel tile, so that only the last block has a ragged edge.
_ALIGN = 16

# Multiply-adds from which OpenBLAS threads a GEMM itself (65536 times its
# GEMM_MULTITHREAD_THRESHOLD of 4), and up to which a product that is not
# cut still runs with BLAS held to one thread on a pool of several: woken
# for so small a product (a few hundred microseconds on one core), OpenBLAS's
# idle thread then spins for its next GEMM (about 0.1 s) on the core that the
# pool's next kernel needs (LeNet's 500 -> 10 layer: three such products a
# step). Larger uncut products (a long contracted axis, few rows and
# columns) keep BLAS's own threads.
_BLAS_THREADED_WORK = 1 << 18
_HELD_WORK = 1 << 23

_SPLIT_DTYPES = (numpy.dtype(numpy.float32), numpy.dtype(numpy.float64))

_local = threading.local()


def blocks(
    m: int, n: int, k: int, max_blocks: int = MAX_BLOCKS
) -> tuple[int, list[tuple[int, int]]]:
    """The block grid of an ``(m, k) @ (k, n)`` product.

    Args:
        m: Rows of the product.
        n: Columns of the product.
        k: The contracted length.
        max_blocks: Blocks at most (a power of two).

    Returns:
        ``(axis, ranges)``: the output axis cut (0: rows, 1: columns) and the
        ``(start, stop)`` ranges along it; one range when not worth cutting.
        Cutting rows repacks ``b`` (``k * n``) in each block, cutting columns
        repacks ``a`` (``m * k``): the longer output axis is cut, whose
        shared operand is the smaller.  The count is 1, 2 or 4 (at most
        ``max_blocks``), each block at least :data:`MIN_BLOCK_WORK`
        multiply-adds and :data:`MIN_BLOCK_LEN` long; products above
        :data:`MAX_SPLIT_WORK` are one range.
    """
    axis = 1 if m < n else 0
    length = n if axis else m
    work = m * n * k
    most = min(max_blocks, work // MIN_BLOCK_WORK, length // MIN_BLOCK_LEN)
    if most <= 1 or work > MAX_SPLIT_WORK:
        return axis, [(0, length)]
    count = 1 << (most.bit_length() - 1)  # the largest power of two <= most
    size = -(-length // count)
    size = -(-size // _ALIGN) * _ALIGN
    return axis, [(lo, min(length, lo + size)) for lo in range(0, length, size)]


def _scratch(size: int, dtype: Any) -> Any:
    """This thread's reusable buffer of ``size`` elements (accumulating
    blocks compute their product here before adding it)."""
    dtype = numpy.dtype(dtype)
    raw = getattr(_local, "buf", None)
    nbytes = size * dtype.itemsize
    if raw is None or raw.nbytes < nbytes:
        raw = _local.buf = numpy.empty((nbytes,), dtype=numpy.uint8)
    return raw[:nbytes].view(dtype)


def _whole(work: int) -> Any:
    """The context an uncut product of ``work`` multiply-adds runs in: BLAS
    held to one thread where OpenBLAS would wake its threads for it and the
    pool has several (see ``_BLAS_THREADED_WORK``), else nothing."""
    if _BLAS_THREADED_WORK <= work <= _HELD_WORK and threads.get_num_threads() > 1:
        return threads.one_blas_thread()
    return contextlib.nullcontext()


def _product(a: Any, b: Any, out: Any, accumulate: bool) -> None:
    if accumulate:
        out += a @ b
    elif type(out) is numpy.ndarray:
        numpy.matmul(a, b, out=out)
    else:
        out[...] = a @ b


def _splittable(a: Any, b: Any, out: Any) -> bool:
    return (
        type(a) is numpy.ndarray
        and type(b) is numpy.ndarray
        and type(out) is numpy.ndarray
        and a.dtype == b.dtype == out.dtype
        and a.dtype in _SPLIT_DTYPES
    )


def matmul_into(
    a: Any, b: Any, out: Any, accumulate: bool = False, max_blocks: int = MAX_BLOCKS
) -> None:
    """``out[g] = a[g] @ b[g]`` (``+=`` with ``accumulate``) over groups.

    For ``a`` (G, M, K), ``b`` (G, K, N) and ``out`` (G, M, N) of any
    strides.  NumPy float32/float64 operands of one dtype are cut per group
    by :func:`blocks`, and the G times that many blocks are split over the
    pool, each one BLAS call on one BLAS thread (a single-thread pool makes
    one such call per group: the same bits); anything else (CuPy, float16,
    small products, BLAS whose threads cannot be set) is one ``matmul``.

    Args:
        a: Left operands.
        b: Right operands.
        out: Where the products go (or are added, with ``accumulate``).
        accumulate: Add the products to ``out`` instead of storing them.
        max_blocks: Blocks per group at most (see :func:`blocks`).
    """
    G, M, K = a.shape
    N = b.shape[2]
    axis, ranges = blocks(M, N, K, max_blocks)
    if (
        len(ranges) == 1
        or not _splittable(a, b, out)
        or threads.blas_controller() is None
    ):
        with _whole(G * M * N * K):
            _product(a, b, out, accumulate)
        return
    if threads.get_num_threads() <= 1:
        # One BLAS call on one BLAS thread: the blocks' bits (see the module
        # docstring) without their repacking.
        with threads.one_blas_thread():
            _product(a, b, out, accumulate)
        return
    tiles = [(g, lo, hi) for g in range(G) for lo, hi in ranges]
    size = max(hi - lo for lo, hi in ranges) * (N if axis == 0 else M)

    def run(i: int) -> None:
        g, lo, hi = tiles[i]
        if axis == 0:
            lhs, rhs, dst = a[g, lo:hi], b[g], out[g, lo:hi]
        else:
            lhs, rhs, dst = a[g], b[g, :, lo:hi], out[g, :, lo:hi]
        if not accumulate:
            numpy.matmul(lhs, rhs, out=dst)
            return
        tmp = _scratch(size, out.dtype)[: dst.size].reshape(dst.shape)
        numpy.matmul(lhs, rhs, out=tmp)
        dst += tmp

    # Each block is one thread's GEMM: BLAS threads would fight the pool's
    # for the cores (see ``threads.blas_controller``).
    with threads.one_blas_thread():
        threads.parallel_for(run, len(tiles))


def matmul(a: Any, b: Any) -> Any:
    """``a @ b`` for 2-d arrays, split over the pool when it pays.

    NumPy float32/float64 operands of one dtype are cut by :func:`blocks`
    into at most :data:`MAX_MATMUL_BLOCKS` (see :func:`matmul_into`);
    anything else is ``a @ b`` as it is (CuPy, float16, mixed dtypes, small
    products).

    Args:
        a: ``(m, k)`` array; any strides (transposed views included).
        b: ``(k, n)`` array.

    Returns:
        The ``(m, n)`` product in the operands' dtype.
    """
    if (
        type(a) is not numpy.ndarray
        or type(b) is not numpy.ndarray
        or a.ndim != 2
        or b.ndim != 2
        or a.dtype != b.dtype
        or a.dtype not in _SPLIT_DTYPES
        or a.shape[1] != b.shape[0]
    ):
        return a @ b
    m, k = a.shape
    n = b.shape[1]
    if m * n * k < min(_BLAS_THREADED_WORK, 2 * MIN_BLOCK_WORK):
        return a @ b  # neither cut nor held: the plainest path
    if (
        len(blocks(m, n, k, MAX_MATMUL_BLOCKS)[1]) <= 1
        or threads.blas_controller() is None
    ):
        with _whole(m * n * k):
            return a @ b
    if threads.get_num_threads() <= 1:
        with threads.one_blas_thread():  # the blocks' bits, in one call
            return a @ b
    y = numpy.empty((m, n), dtype=a.dtype)
    matmul_into(a[None], b[None], y[None], max_blocks=MAX_MATMUL_BLOCKS)
    return y
