"""Max pooling with its in-window argmax, and the scatter and gather at it.

When a backward may follow, max pooling finds the in-window argmax in the
same passes as the maximum, so its backward is a scatter of the gradient at
the argmax (``np.add.at`` where windows overlap, plain or masked dense writes
where they do not) rather than a second search; the double backward gathers
at the same positions.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari.functions.pooling import _pool_gpu
from kusari.functions.pooling._pool_layout import (
    PoolParams,
    _by_reduction,
    _Direct,
    _layout,
    _prod,
    _split_windows,
    _step,
    _strides,
    _window_axes,
    _xp,
)
from kusari.utils import threads


def _max_by_reduction(
    x: Any, pp: PoolParams, out: tuple[int, ...], want_idx: bool
) -> tuple[Any, Any]:
    nd = len(out)
    t = _split_windows(x, pp, out)
    if not want_idx:
        return t.max(axis=_window_axes(nd)), None
    # window elements last, in row-major order: argmax is then the index
    perm = (0, 1) + tuple(range(2, 2 + 2 * nd, 2)) + _window_axes(nd)
    t = t.transpose(perm).reshape(tuple(x.shape[:2]) + out + (_prod(pp.k),))
    return t.max(axis=-1), t.argmax(axis=-1).astype(index_dtype(pp))


def index_dtype(pp: PoolParams) -> Any:
    """The dtype of the in-window argmax kept between forward and backward."""
    return numpy.uint8 if _prod(pp.k) <= 256 else numpy.int32


def max_pool(
    x: Any, pp: PoolParams, out: tuple[int, ...], want_idx: bool
) -> tuple[Any, Any]:
    """Window maxima and, with ``want_idx``, the first argmax in each window.

    The argmax is the row-major offset within the window (``index_dtype``).
    """
    xp = _xp(x)
    N, C = x.shape[:2]
    if xp is not numpy and len(out) == 2:
        y, idx = _pool_gpu.max_pool(x, pp, out, index_dtype(pp))
        return y, (idx if want_idx else None)
    if _by_reduction(x, pp, out):
        return _max_by_reduction(x, pp, out, want_idx)
    insz = tuple(x.shape[2:])
    lay = _layout(x, pp, insz, out, want_idx)
    NC = N * C
    xs = x.reshape((NC,) + insz)
    y = xp.empty((NC,) + out, dtype=x.dtype)
    step = _step(x, NC, lay.block_bytes(x.itemsize))
    it = index_dtype(pp)
    idx = xp.empty((NC,) + out, dtype=it) if want_idx else None
    blocks = list(range(0, NC, step))

    def work(lo: int, hi: int) -> None:
        _max_blocks(xp, lay, xs, y, idx, it, step, NC, blocks[lo:hi])

    threads.run_split(work, len(blocks), 2 * x.nbytes)
    y = y.reshape((N, C) + out)
    return y, None if idx is None else idx.reshape((N, C) + out)


def _max_blocks(
    xp: Any,
    lay: Any,
    xs: Any,
    y: Any,
    idx: Any,
    it: Any,
    step: int,
    NC: int,
    starts: list[int],
) -> None:
    """Max pooling (and argmax into ``idx``) of the planes blocks ``starts``."""
    want_idx = idx is not None
    n0 = min(step, NC)
    ext = xp.empty((n0,) + lay.ext, dtype=xs.dtype)
    if want_idx:
        ie = xp.empty((n0,) + lay.ext, dtype=it)
        m = xp.empty((n0,) + lay.ext, dtype=bool)
        mu = m.view(numpy.uint8)
    for i in starts:
        taps = lay.tap_views(xs[i : i + step], -numpy.inf)
        n = taps[0].shape[0]
        e = ext[:n]
        if len(taps) == 1:
            e[...] = taps[0]
        if want_idx:
            mm, mmu, ii = m[:n], mu[:n], ie[:n]
            ii.fill(0)
        for o in range(1, len(taps)):
            prev = taps[0] if o == 1 else e
            if want_idx:
                # Strictly greater, so a tie keeps the earlier offset; the
                # last offset that raised the maximum is then the largest
                # one that did, and a running max of o * mask tracks it.
                xp.greater(taps[o], prev, out=mm)
                if it is numpy.uint8:
                    xp.multiply(mmu, o, out=mmu)
                    xp.maximum(ii, mmu, out=ii)
                else:
                    xp.copyto(ii, o, where=mm)
            xp.maximum(prev, taps[o], out=e)
        y[i : i + n] = lay.from_ext(e)
        if idx is not None:
            idx[i : i + n] = lay.from_ext(ii)


def _rel_offsets(idx: Any, k: tuple[int, ...], pstr: tuple[int, ...], dt: Any) -> Any:
    """Flat offset, in a padded array of strides ``pstr``, of window index ``idx``.

    With ``q_a = idx // prod(k[a+1:])`` (the offset's leading ``a + 1``
    digits), the offset ``sum_a d_a * pstr_a`` equals ``sum_a q_a * c_a``
    for ``c_a = pstr_a - k_{a+1} * pstr_{a+1}`` (``c`` of the last axis 1):
    a few integer ops instead of a gather from a table.
    """
    nd = len(k)
    rel = idx.astype(dt)
    kst = _strides(k)
    for a in range(nd - 1):
        c = pstr[a] - k[a + 1] * pstr[a + 1]
        # q_a is 0 while all leading kernel sizes are 1 (and the divisor
        # could then exceed idx's dtype)
        if c and _prod(k[: a + 1]) > 1:
            q = (idx // kst[a]).astype(dt)
            q *= c
            rel += q
    return rel


def _positions(
    pp: PoolParams, gsz: tuple[int, ...], P: tuple[int, ...], rows: int, xp: Any
) -> tuple[Any, Any, tuple[int, ...]]:
    """Flat position of each window's origin in ``rows`` padded planes.

    Also returns the dtype for in-window offsets and the padded strides.
    """
    pstr = _strides(P)
    plane = _prod(P)
    base = numpy.zeros(gsz, dtype=numpy.int64)
    for a in range(len(P)):
        sh = [1] * len(P)
        sh[a] = -1
        base = base + (numpy.arange(gsz[a]) * (pp.s[a] * pstr[a])).reshape(sh)
    full = (xp.arange(rows, dtype=numpy.int64) * plane)[:, None] + xp.asarray(
        base.ravel()
    )
    rdt = numpy.int32 if plane < 2**31 else numpy.int64
    return full, rdt, pstr


def index_scatter(idx: Any, g: Any, pp: PoolParams, outsz: tuple[int, ...]) -> Any:
    """``res[window(i) at idx[i]] += g[i]``; ``res`` has spatial size ``outsz``."""
    xp = _xp(g)
    idx = xp.asarray(idx)  # upsampling_2d may get host indexes for device data
    if xp is not numpy and len(outsz) == 2:
        return _pool_gpu.scatter_at_argmax(idx, g, pp, tuple(outsz))
    N, C = g.shape[:2]
    gsz = tuple(g.shape[2:])
    lay = _layout(g, pp, outsz, gsz)
    if isinstance(lay, _Direct) and lay.disjoint:
        return _scatter_direct(idx, g, lay, pp, outsz)
    P = pp.padded(outsz, gsz)
    NC = N * C
    plane = _prod(P)
    res = xp.zeros((NC, plane), dtype=g.dtype)
    step = _step(g, NC, plane * g.itemsize)
    base, rdt, pstr = _positions(pp, gsz, P, min(step, NC), xp)
    gs = g.reshape(NC, -1)
    ids = idx.reshape(NC, -1)
    overlap = pp.overlapping(gsz)
    blocks = list(range(0, NC, step))

    def work(lo: int, hi: int) -> None:
        # Each block of planes scatters into its own rows of res.
        for i in blocks[lo:hi]:
            n = min(step, NC - i)
            pos = (base[:n] + _rel_offsets(ids[i : i + n], pp.k, pstr, rdt)).ravel()
            target = res[i : i + n].reshape(-1)
            vals = gs[i : i + n].reshape(-1)
            if overlap:  # CuPy (>= 13) has the same atomic ufunc.at
                xp.add.at(target, pos, vals)
            else:  # every position is written at most once
                target[pos] = vals

    if xp is numpy:
        threads.run_split(work, len(blocks), 2 * res.nbytes + ids.nbytes)
    else:
        work(0, len(blocks))
    res = res.reshape((N, C) + P)
    if P == outsz:
        return res
    return res[pp.crop(outsz)]


def _scatter_direct(
    idx: Any, g: Any, lay: _Direct, pp: PoolParams, outsz: tuple[int, ...]
) -> Any:
    """:func:`index_scatter` for disjoint windows inside the input.

    Each kernel offset writes its masked gradient straight into its strided
    window: ``prod(ksize)`` dense passes, no position arithmetic, and no
    zeroing where the windows cover the input.
    """
    xp = _xp(g)
    N, C = g.shape[:2]
    gsz = tuple(g.shape[2:])
    NC = N * C
    zero = g.dtype.type(0)
    exact = pp.tiles(outsz, gsz)
    if exact and all(o == 1 for o in gsz):
        # global pooling: one broadcast compare against the window positions
        K = _prod(pp.k)
        hit = idx.reshape(NC, 1) == xp.arange(K).reshape(1, K)
        res = xp.where(hit, g.reshape(NC, 1), zero)
        return res.reshape((N, C) + outsz)
    res = (xp.empty if exact else xp.zeros)((NC,) + outsz, dtype=g.dtype)
    gs = g.reshape((NC,) + gsz)
    ids = idx.reshape((NC,) + gsz)
    # g * mask is the cheap form on NumPy, but inf * False is NaN
    finite = xp is numpy and bool(xp.isfinite(g).all())
    step = _step(g, NC, lay.block_bytes(g.itemsize))
    blocks = list(range(0, NC, step))

    def work(lo: int, hi: int) -> None:
        # The mask in g's dtype where g is finite: a float times a bool
        # array runs through NumPy's casting buffers (LeNet's first pool
        # backward, one thread: 1.13 -> 0.98 ms).
        m = xp.empty((min(step, NC),) + gsz, dtype=g.dtype if finite else bool)
        for i in blocks[lo:hi]:
            n = min(step, NC - i)
            mm, gc, ic, rc = m[:n], gs[i : i + n], ids[i : i + n], res[i : i + n]
            for o, w in enumerate(lay.wins):
                xp.equal(ic, o, out=mm)
                if finite:
                    xp.multiply(gc, mm, out=rc[w])
                else:
                    rc[w] = xp.where(mm, gc, zero)

    if xp is numpy:
        threads.run_split(work, len(blocks), 2 * res.nbytes)
    else:
        work(0, len(blocks))
    return res.reshape((N, C) + outsz)


def index_gather(idx: Any, x: Any, pp: PoolParams) -> Any:
    """``res[i] = x_pad[window(i) at idx[i]]`` (zero padding); ``idx``'s shape."""
    xp = _xp(x)
    idx = xp.asarray(idx)
    N, C = x.shape[:2]
    insz = tuple(x.shape[2:])
    out = tuple(idx.shape[2:])
    P = pp.padded(insz, out)
    if P == insz:
        xpad = x
    else:
        xpad = xp.zeros((N, C) + P, dtype=x.dtype)
        xpad[pp.crop(insz)] = x
    NC = N * C
    base, rdt, pstr = _positions(pp, out, P, NC, xp)
    pos = base + _rel_offsets(idx.reshape(NC, -1), pp.k, pstr, rdt)
    return xpad.reshape(-1).take(pos).reshape(idx.shape)
