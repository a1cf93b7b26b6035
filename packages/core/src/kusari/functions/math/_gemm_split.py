"""2-d NumPy GEMMs cut into blocks on kusari's thread pool, BLAS at one thread.

With BLAS threaded, OpenBLAS's idle workers spin-wait after every GEMM and
take the cores that kusari's pool needs for the element-wise work between
GEMMs (pooling, ReLU, batch normalization). :func:`matmul` instead cuts a
large product into blocks of output rows or columns, each one pool thread's
single-threaded BLAS call (as the convolution kernels do).

The blocks depend on the shapes only, never on the thread count: the result
has the same bits at any pool size above one. A single-thread pool keeps the
plain ``a @ b`` (one BLAS call, no overhead); its bits may differ from the
blocks' in the last place, as OpenBLAS's own threading already does, since
OpenBLAS picks its kernels and blocking by the sizes it is given.
"""

from __future__ import annotations

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
# steps: 4 blocks a little faster than 8).
MAX_BLOCKS = 4

# A block's rows (or columns) are a multiple of this, the widest BLAS
# micro-kernel tile, so that only the last block has a ragged edge.
_ALIGN = 16

_SPLIT_DTYPES = (numpy.dtype(numpy.float32), numpy.dtype(numpy.float64))


def blocks(m: int, n: int, k: int) -> tuple[int, list[tuple[int, int]]]:
    """The block grid of an ``(m, k) @ (k, n)`` product.

    Args:
        m: Rows of the product.
        n: Columns of the product.
        k: The contracted length.

    Returns:
        ``(axis, ranges)``: the output axis cut (0: rows, 1: columns) and the
        ``(start, stop)`` ranges along it; one range when not worth cutting.
        Cutting rows repacks ``b`` (``k * n``) in each block, cutting columns
        repacks ``a`` (``m * k``): the axis whose shared operand is smaller
        is cut. Products above :data:`MAX_SPLIT_WORK` are one range.
    """
    axis = 1 if m < n else 0
    length = n if axis else m
    work = m * n * k
    count = min(MAX_BLOCKS, work // MIN_BLOCK_WORK, length // _ALIGN)
    if count <= 1 or work > MAX_SPLIT_WORK:
        return axis, [(0, length)]
    size = -(-length // count)
    size = -(-size // _ALIGN) * _ALIGN
    return axis, [(lo, min(length, lo + size)) for lo in range(0, length, size)]


def matmul(a: Any, b: Any) -> Any:
    """``a @ b`` for 2-d arrays, split over the pool when it pays.

    NumPy float32/float64 operands of one dtype are split when the pool has
    more than one thread, BLAS's thread count can be set and the product is
    large but not huge (see :func:`blocks`); anything else is ``a @ b`` as it is (CuPy,
    float16, mixed dtypes, small products).

    Args:
        a: ``(m, k)`` array; any strides (transposed views included).
        b: ``(k, n)`` array.

    Returns:
        The ``(m, n)`` product in the operands' dtype.
    """
    if threads.get_num_threads() <= 1:
        return a @ b
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
    axis, ranges = blocks(m, n, k)
    if len(ranges) <= 1 or threads.blas_controller() is None:
        return a @ b
    y = numpy.empty((m, n), dtype=a.dtype)

    if axis == 0:

        def run(i: int) -> None:
            lo, hi = ranges[i]
            numpy.matmul(a[lo:hi], b, out=y[lo:hi])

    else:

        def run(i: int) -> None:
            lo, hi = ranges[i]
            numpy.matmul(a, b[:, lo:hi], out=y[:, lo:hi])

    # Each block is one thread's GEMM: BLAS threads would fight the pool's
    # for the cores (see ``threads.blas_controller``).
    with threads.one_blas_thread():
        threads.parallel_for(run, len(ranges))
    return y
