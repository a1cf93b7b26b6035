"""Array kernels of the pooling family (N-d, device agnostic).

The entry points the pooling functions use.  The window geometry and the
stride-phase / in-place layouts the kernels run on are in
:mod:`._pool_layout` (with the blocking knobs ``_CHUNK_BYTES`` and
``_SPLIT_ARGMAX_BYTES``); max pooling with its argmax, and the scatter and
gather at the argmax, are in :mod:`._pool_max`.  Sum pooling (average
pooling) and its adjoint (average pooling's backward, unpooling) are here:
the adjoint accumulates into the phase layout and merges it back.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari.functions.pooling._pool_layout import (
    PoolParams,
    _by_reduction,
    _Direct,
    _layout,
    _prod,
    _split_windows,
    _step,
    _window_axes,
    _xp,
    as_tuple,
)
from kusari.functions.pooling._pool_max import (
    index_dtype,
    index_gather,
    index_scatter,
    max_pool,
)
from kusari.utils import threads

__all__ = [
    "PoolParams",
    "as_tuple",
    "index_dtype",
    "index_gather",
    "index_scatter",
    "max_pool",
    "sum_pool",
    "sum_unpool",
    "valid_counts",
]


def sum_pool(x: Any, pp: PoolParams, out: tuple[int, ...]) -> Any:
    """Sum over each window (zero padding)."""
    xp = _xp(x)
    N, C = x.shape[:2]
    if _by_reduction(x, pp, out):
        return _split_windows(x, pp, out).sum(axis=_window_axes(len(out)))
    insz = tuple(x.shape[2:])
    lay = _layout(x, pp, insz, out)
    NC = N * C
    xs = x.reshape((NC,) + insz)
    y = xp.empty((NC,) + out, dtype=x.dtype)
    step = _step(x, NC, lay.block_bytes(x.itemsize))
    blocks = list(range(0, NC, step))

    def work(lo: int, hi: int) -> None:
        ext = xp.empty((min(step, NC),) + lay.ext, dtype=x.dtype)
        for i in blocks[lo:hi]:
            taps = lay.tap_views(xs[i : i + step], 0.0)
            e = ext[: taps[0].shape[0]]
            if len(taps) == 1:
                e[...] = taps[0]
            else:
                xp.add(taps[0], taps[1], out=e)
            for t in taps[2:]:
                e += t
            y[i : i + e.shape[0]] = lay.from_ext(e)

    _run(xp, work, len(blocks), 2 * x.size * x.itemsize)
    return y.reshape((N, C) + out)


def _run(xp: Any, work: Any, n_blocks: int, nbytes: int) -> None:
    """``work(lo, hi)`` over the blocks, on the intra-op threads (NumPy)."""
    if xp is numpy:
        threads.run_split(work, n_blocks, nbytes)
    else:
        work(0, n_blocks)


def sum_unpool(g: Any, pp: PoolParams, outsz: tuple[int, ...]) -> Any:
    """Adjoint of :func:`sum_pool`: every input value added over its window."""
    xp = _xp(g)
    N, C = g.shape[:2]
    gsz = tuple(g.shape[2:])
    NC = N * C
    gs = g.reshape((NC,) + gsz)
    if pp.tiles(outsz, gsz) and all(o == 1 for o in gsz):
        K = _prod(pp.k)
        res = xp.broadcast_to(gs.reshape(NC, 1), (NC, K)).copy()
        return res.reshape((N, C) + outsz)
    lay = _layout(g, pp, outsz, gsz)
    if isinstance(lay, _Direct):
        res = lay.unpool(gs, pp.tiles(outsz, gsz))
        return res.reshape((N, C) + outsz)
    alloc = xp.empty if lay.full_cover else xp.zeros
    res = alloc((NC,) + outsz, dtype=g.dtype)
    step = _step(g, NC, lay.block_bytes(g.itemsize))
    L = lay.L
    blocks = list(range(0, NC, step))

    def work(lo: int, hi: int) -> None:
        rows = min(step, NC)
        buf = xp.zeros((rows, L), dtype=g.dtype)  # junk entries stay zero
        G = xp.empty((rows, lay.nphases, lay.size), dtype=g.dtype)
        for i in blocks[lo:hi]:
            n = min(step, NC - i)
            ge = lay.to_ext(buf[:n], gs[i : i + n])
            Gn = G[:n]
            Gn.fill(0)
            for po, so in lay.taps:
                d = Gn[:, po, so : so + L]
                d += ge
            lay.merge(Gn, res[i : i + n])

    _run(xp, work, len(blocks), 2 * res.size * res.itemsize)
    return res.reshape((N, C) + outsz)


def valid_counts(
    insz: tuple[int, ...], pp: PoolParams, out: tuple[int, ...], xp: Any
) -> Any:
    """Number of non-padding elements in each window, shape ``(1, 1, *out)``."""
    counts = None
    for n, k, s, p, o in zip(insz, pp.k, pp.s, pp.p, out):
        start = numpy.arange(o) * s - p
        c = numpy.minimum(start + k, n) - numpy.maximum(start, 0)
        c = numpy.maximum(c, 0)
        counts = c if counts is None else numpy.multiply.outer(counts, c)
    assert counts is not None
    return xp.asarray(counts.reshape((1, 1) + out))
