"""NumPy kernels of batch normalization, in cache-sized chunks on the threads.

The input is viewed as ``(A, K, B)``: ``K`` the channels (the axes that are
not normalized), ``A`` and ``B`` the normalized axes before and after them,
so an image batch ``(N, C, H, W)`` is ``(N, C, H * W)``. The work is cut into
a :class:`Grid` of chunks of about :data:`CHUNK_ELEMENTS` elements that
depends on the shape only, never on the thread count; the threads take
chunks in turn, and every sum a chunk makes is combined with the others in
the chunk order. So the results are the same bits at any thread count.

Where a chunk holds whole channels (at most :data:`CHUNK_ELEMENTS` elements
per channel: all of ResNet-50's at batch 16 but the 112 x 112 maps of its
first layer) each kernel is one pass over memory: the chunk's statistics and
its output are computed while the chunk is in the cache, with temporaries of
the chunk's size only. Larger channels are cut along ``A`` too, and the
kernels make two passes: partial sums per chunk (combined with Chan et al.'s
formula for the variance), then the output.
"""

from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Callable
from typing import Any

import numpy

from kusari.utils import threads

# Elements (of the compute dtype) per chunk. A chunk and its two temporaries
# (about 3 x 512 KiB in float32) stay in a core's L2 or the shared L3 between
# the passes over it; a smaller chunk pays more of the ~15 NumPy calls per
# chunk, each a few microseconds of Python. Changing it changes the rounding
# of the statistics (not their accuracy).
CHUNK_ELEMENTS = 1 << 17


def bcast_shape(x_shape: tuple[int, ...], axis: tuple[int, ...]) -> tuple[int, ...]:
    """``x_shape`` with ones on the reduced axes."""
    return tuple(1 if i in axis else s for i, s in enumerate(x_shape))


class Grid:
    """The chunks of an ``(A, K, B)`` array: blocks of ``A`` x blocks of ``K``.

    A chunk spans all of ``B`` and has at most ``chunk`` elements (or one
    row of ``B`` where that is more). With at most ``chunk`` elements per
    channel (``A * B``), a chunk is a block of whole channels (``fused``);
    otherwise it is one channel cut along ``A``.

    Args:
        a: The length of ``A``.
        k: The length of ``K``.
        b: The length of ``B``.
        chunk: The target number of elements per chunk.
    """

    def __init__(self, a: int, k: int, b: int, chunk: int) -> None:
        per_channel = a * b
        if k * per_channel <= chunk:  # the common small case, in one chunk
            self.a_blocks = [(0, a)]
            self.k_blocks = [(0, k)]
            self.fused = True
            self.b = b
            return
        if per_channel <= chunk:
            a_pieces = 1
            k_pieces = -(-k // max(1, chunk // max(1, per_channel)))
        else:
            # One channel per chunk, cut into rows of A (one row at least).
            a_pieces, k_pieces = -(-a // max(1, chunk // b)), k
        self.a_blocks = threads.split(a, a_pieces)
        self.k_blocks = threads.split(k, k_pieces)
        self.fused = len(self.a_blocks) == 1
        self.b = b

    def __len__(self) -> int:
        return len(self.a_blocks) * len(self.k_blocks)

    def __getitem__(self, i: int) -> tuple[int, tuple[slice, slice], slice]:
        """The ``A`` block's index, ``(A, K)`` slices of chunk ``i``, and its ``K``
        slice (chunks run over ``A`` first)."""
        na = len(self.a_blocks)
        ai, ki = i % na, i // na
        (a0, a1), (k0, k1) = self.a_blocks[ai], self.k_blocks[ki]
        return ai, (slice(a0, a1), slice(k0, k1)), slice(k0, k1)

    def counts(self) -> Any:
        """Elements per channel in each ``A`` block, as a column."""
        return numpy.array([(hi - lo) * self.b for lo, hi in self.a_blocks])[:, None]


def run_chunks(fn: Callable[[int], Any], n: int, nbytes: int) -> None:
    """``fn(0)``, ..., ``fn(n - 1)``, the chunks shared out over the threads.

    Each thread takes the next chunk when done with its last, so a thread
    that loses its core for a while (to another process, or to BLAS threads
    still spinning after a GEMM) holds up only the chunk it is on.

    Args:
        fn: Processes one chunk (disjoint outputs per chunk).
        n: The number of chunks.
        nbytes: Bytes the whole work reads and writes (see ``threads.plan``).
    """
    workers = threads.plan(nbytes, n) if n > 1 else 1
    if workers <= 1:
        for i in range(n):
            fn(i)
        return
    counter = itertools.count()
    lock = threading.Lock()

    def task(_: int) -> None:
        while True:
            with lock:
                i = next(counter)
            if i >= n:
                return
            fn(i)

    threads.parallel_for(task, workers)


def _layout(
    shape: tuple[int, ...], axis: tuple[int, ...]
) -> tuple[tuple[int, ...] | None, tuple[int, int, int]]:
    """``(perm, (A, K, B))``: ``perm`` (None: as is) puts the kept axes in one
    run, and ``(A, K, B)`` is the transposed shape grouped around it."""
    kept = [i for i in range(len(shape)) if i not in axis]
    perm: tuple[int, ...] | None = None
    if kept and kept[-1] - kept[0] + 1 != len(kept):
        perm = tuple(axis) + tuple(kept)
        shape = tuple(shape[i] for i in perm)
        kept = list(range(len(axis), len(shape)))
    # No kept axis (a 0-d gamma): one channel, all of x.
    k0 = kept[0] if kept else len(shape)
    k1 = kept[-1] + 1 if kept else len(shape)
    return perm, (math.prod(shape[:k0]), math.prod(shape[k0:k1]), math.prod(shape[k1:]))


def _to3(x: Any, perm: Any, abk: tuple[int, int, int]) -> Any:
    """``x`` as an ``(A, K, B)`` array (a view when ``x`` allows it)."""
    if perm is not None:
        x = x.transpose(perm)
    return x.reshape(abk)


def _new_like(x: Any, perm: Any, abk: tuple[int, int, int], dtype: Any) -> Any:
    """A new array of ``x``'s shape and ``dtype`` and its ``(A, K, B)`` view
    (C-ordered in the transposed order when ``perm`` is given)."""
    if perm is None:
        out = numpy.empty(x.shape, dtype)
        return out, out.reshape(abk)
    t = numpy.empty(tuple(x.shape[i] for i in perm), dtype)
    return t.transpose(numpy.argsort(perm)), t.reshape(abk)


def _store(dst: Any, src: Any) -> None:
    """``dst[...] = src`` (casting as ``astype`` does), skipping a self-copy."""
    if dst is not src:
        dst[...] = src


_local = threading.local()
# Bytes below which a temporary is allocated afresh (glibc's malloc serves
# blocks under its 128 KiB mmap threshold from memory it keeps).
_SMALL = 1 << 16


def _scratch(dtype: Any, shape: tuple[int, ...], count: int) -> list[Any]:
    """``count`` arrays of ``shape`` to write a chunk's temporaries into.

    They are views of buffers this thread keeps from call to call: a fresh
    temporary per chunk would be fresh memory as often as not (the C
    allocator hands blocks of this size back to the system when freed), and
    its page faults cost more than the arithmetic. Small chunks (which the
    allocator serves from memory it keeps) and chunks larger than
    :data:`CHUNK_ELEMENTS` (one long row) get new arrays.
    """
    size = math.prod(shape)
    nbytes = size * numpy.dtype(dtype).itemsize
    if nbytes <= _SMALL or size > CHUNK_ELEMENTS:
        return [numpy.empty(shape, dtype) for _ in range(count)]
    bufs = getattr(_local, "buffers", [])
    if len(bufs) < count or bufs[0].nbytes < nbytes:
        # Room for a whole chunk of float64, whatever this call needs.
        room = max(nbytes, CHUNK_ELEMENTS * 8)
        bufs = [numpy.empty(room, numpy.uint8) for _ in range(max(count, 2))]
        _local.buffers = bufs
    return [b[:nbytes].view(dtype).reshape(shape) for b in bufs[:count]]


_RED = (0, 2)  # the normalized axes of a chunk


def forward(
    x: Any, gamma: Any, beta: Any, axis: tuple[int, ...], cdt: Any, eps: Any
) -> tuple[Any, Any, Any, Any]:
    """Batch statistics and ``y`` on NumPy.

    Returns ``(mean, var, inv_std, y)``, ``var`` the biased variance. No
    array of ``x``'s size but ``y`` is made: the backward recomputes
    ``x_hat`` from ``x``, ``mean`` and ``inv_std`` (see :func:`x_hat_piece`).
    """
    perm, abk = _layout(x.shape, axis)
    x3 = _to3(x, perm, abk)
    y, y3 = _new_like(x, perm, abk, x.dtype)
    grid = Grid(*abk, chunk=CHUNK_ELEMENTS)
    k = abk[1]
    mean = numpy.empty(k, cdt)
    var = numpy.empty(k, cdt)
    inv_std = numpy.empty(k, cdt)
    g_all = gamma.astype(cdt, copy=False).reshape(k)
    b_all = beta.astype(cdt, copy=False).reshape(k)

    def finish(xs: Any, ks: slice, t: Any) -> None:
        # y = (x - mean) * (inv_std * gamma) + beta from t = x - mean, in
        # y's chunk when it has the compute dtype (else in t).
        yv = y3[xs]
        c = (inv_std[ks] * g_all[ks])[:, None]
        o = numpy.multiply(t, c, out=yv if yv.dtype == cdt else t)
        numpy.add(o, b_all[ks, None], out=o)
        _store(yv, o)

    if grid.fused:

        def chunk(i: int) -> None:
            _, xs, ks = grid[i]
            xv = x3[xs]
            t, sq = _scratch(cdt, xv.shape, 2)
            n = xv.shape[0] * xv.shape[2]
            mu = xv.sum(axis=_RED, dtype=cdt) / n
            numpy.subtract(xv, mu[:, None], out=t)
            v = numpy.square(t, out=sq).sum(axis=_RED) / n
            mean[ks] = mu
            var[ks] = v
            inv_std[ks] = 1 / numpy.sqrt(v + eps)
            finish(xs, ks, t)

        run_chunks(chunk, len(grid), 4 * x.nbytes)
    else:
        _two_pass_statistics(x3, grid, cdt, eps, mean, var, inv_std)

        def output(i: int) -> None:
            _, xs, ks = grid[i]
            xv = x3[xs]
            (t,) = _scratch(cdt, xv.shape, 1)
            finish(xs, ks, numpy.subtract(xv, mean[ks, None], out=t))

        run_chunks(output, len(grid), 2 * x.nbytes)
    shape = gamma.shape
    return mean.reshape(shape), var.reshape(shape), inv_std.reshape(shape), y


def _two_pass_statistics(
    x3: Any, grid: Grid, cdt: Any, eps: Any, mean: Any, var: Any, inv_std: Any
) -> None:
    """``mean``, ``var`` and ``inv_std`` of channels cut over several chunks."""
    # Per chunk: sum and the sum of squares about the chunk's own mean.
    na, k = len(grid.a_blocks), x3.shape[1]
    sums = numpy.empty((na, k), cdt)
    m2s = numpy.empty((na, k), cdt)
    counts = grid.counts().astype(cdt)

    def partial(i: int) -> None:
        ai, xs, ks = grid[i]
        xv = x3[xs]
        t, sq = _scratch(cdt, xv.shape, 2)
        s = xv.sum(axis=_RED, dtype=cdt)
        numpy.subtract(xv, (s / counts[ai])[:, None], out=t)
        sums[ai, ks] = s
        m2s[ai, ks] = numpy.square(t, out=sq).sum(axis=_RED)

    run_chunks(partial, len(grid), 2 * x3.nbytes)
    # Chan et al.: the chunks' sums of squares plus the spread of their means.
    m = counts.sum()
    mean[...] = sums.sum(axis=0) / m
    d = sums / counts - mean
    var[...] = (m2s.sum(axis=0) + (counts * d * d).sum(axis=0)) / m
    inv_std[...] = 1 / numpy.sqrt(var + eps)


def x_hat_piece(x: Any, mean: Any, inv_std: Any, cdt: Any, bs: tuple[int, ...]) -> Any:
    """``(x - mean) * inv_std`` in ``cdt`` as a new array, ``mean`` and
    ``inv_std`` reshaped to ``bs`` (for the second-order terms)."""
    xh = numpy.subtract(x, mean.reshape(bs), dtype=cdt)
    return numpy.multiply(xh, inv_std.reshape(bs), out=xh)


def backward(
    gy: Any,
    x: Any,
    gamma: Any,
    mean: Any,
    inv_std: Any,
    axis: tuple[int, ...],
    m: int,
) -> tuple[Any, Any, Any]:
    """``(gx, ggamma, gbeta)`` of batch normalization on NumPy.

    ``x_hat`` is recomputed chunk by chunk from ``x`` and the forward's
    ``mean`` and ``inv_std`` (as PyTorch and Chainer do), instead of being
    kept from the forward: an array of ``x``'s size less per layer lives
    until the backward. ``gx`` has ``x``'s dtype; the sums have ``inv_std``'s
    (compute) dtype.
    """
    cdt = inv_std.dtype
    perm, abk = _layout(x.shape, axis)
    x3 = _to3(x, perm, abk)
    gy3 = _to3(gy, perm, abk)
    gx, gx3 = _new_like(x, perm, abk, x.dtype)
    grid = Grid(*abk, chunk=CHUNK_ELEMENTS)
    k = abk[1]
    mu_all = mean.reshape(k)
    inv_all = inv_std.reshape(k)
    scale = gamma.astype(cdt, copy=False).reshape(k) * inv_all

    def sums(xs: Any, ks: slice, u: Any, p: Any) -> tuple[Any, Any]:
        # sum(g) and sum(g * (x - mean)), with x - mean left in u; times
        # inv_std, the latter is ggamma = sum(g * x_hat).
        g = gy3[xs]
        numpy.subtract(x3[xs], mu_all[ks, None], out=u)
        gu = numpy.multiply(g, u, out=p).sum(axis=_RED)
        return g.sum(axis=_RED, dtype=cdt), gu

    def finish(xs: Any, ks: slice, u: Any, gb: Any, gg: Any) -> None:
        # gx = scale * (g - x_hat * ggamma / m - gbeta / m), in that order,
        # with x_hat * ggamma = (x - mean) * (inv_std * ggamma); in gx's chunk
        # when it has the compute dtype, else in u.
        gv = gx3[xs]
        c = (inv_all[ks] * gg / m)[:, None]
        o = numpy.multiply(u, c, out=gv if gv.dtype == cdt else u)
        numpy.subtract(gy3[xs], o, out=o)
        numpy.subtract(o, (gb / m)[:, None], out=o)
        numpy.multiply(o, scale[ks, None], out=o)
        _store(gv, o)

    gbeta = numpy.empty(k, cdt)
    ggamma = numpy.empty(k, cdt)
    if grid.fused:

        def chunk(i: int) -> None:
            _, xs, ks = grid[i]
            u, p = _scratch(cdt, gy3[xs].shape, 2)
            gb, gu = sums(xs, ks, u, p)
            gg = gu * inv_all[ks]
            gbeta[ks] = gb
            ggamma[ks] = gg
            finish(xs, ks, u, gb, gg)

        run_chunks(chunk, len(grid), 6 * x.nbytes)
    else:
        na = len(grid.a_blocks)
        gbs = numpy.empty((na, k), cdt)
        gus = numpy.empty((na, k), cdt)

        def partial(i: int) -> None:
            ai, xs, ks = grid[i]
            gbs[ai, ks], gus[ai, ks] = sums(xs, ks, *_scratch(cdt, gy3[xs].shape, 2))

        run_chunks(partial, len(grid), 3 * x.nbytes)
        gbeta[...] = gbs.sum(axis=0)
        ggamma[...] = gus.sum(axis=0) * inv_all

        def output(i: int) -> None:
            _, xs, ks = grid[i]
            xv = x3[xs]
            (u,) = _scratch(cdt, xv.shape, 1)
            numpy.subtract(xv, mu_all[ks, None], out=u)
            finish(xs, ks, u, gbeta[ks], ggamma[ks])

        run_chunks(output, len(grid), 3 * x.nbytes)
    shape = gamma.shape
    return gx, ggamma.reshape(shape), gbeta.reshape(shape)


def fixed_forward(
    x: Any, scale: Any, shift: Any, axis: tuple[int, ...], cdt: Any
) -> Any:
    """``x * scale + shift`` per channel (computed in ``cdt``), of ``x``'s dtype."""
    perm, abk = _layout(x.shape, axis)
    x3 = _to3(x, perm, abk)
    y, y3 = _new_like(x, perm, abk, x.dtype)
    grid = Grid(*abk, chunk=CHUNK_ELEMENTS)
    k = abk[1]
    sc = scale.reshape(k)
    sh = shift.reshape(k)

    def chunk(i: int) -> None:
        _, xs, ks = grid[i]
        yv = y3[xs]
        o = yv if yv.dtype == cdt else _scratch(cdt, yv.shape, 1)[0]
        numpy.multiply(x3[xs], sc[ks, None], out=o)
        numpy.add(o, sh[ks, None], out=o)
        _store(yv, o)

    run_chunks(chunk, len(grid), 2 * x.nbytes)
    return y
