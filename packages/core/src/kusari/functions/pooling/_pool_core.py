"""Array kernels of the pooling family (N-d, device agnostic).

Every kernel works on strided slices of the padded input, one vectorised
operation per kernel offset (``prod(ksize)`` iterations, never per pixel):

* max pooling: running ``maximum``; the argmax (first maximum in the window,
  flattened over the kernel axes) is recovered by comparing with the result,
* index scatter / gather: the backward of max pooling and ``upsampling_2d``,
* sum pooling and its adjoint (unpooling): average pooling and ``unpooling_nd``.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy

from kusari import utils


def as_tuple(value: Any, n: int, fname: str, argname: str) -> tuple[int, ...]:
    """``value`` as a tuple of ``n`` ints (an int is repeated)."""
    if isinstance(value, (int, numpy.integer)):
        return (int(value),) * n
    try:
        t = tuple(int(v) for v in value)
    except TypeError:
        raise TypeError(
            f"{fname}: {argname} must be an int or a tuple of {n} ints, got {value!r}"
        ) from None
    if len(t) != n:
        raise ValueError(f"{fname}: {argname} must have {n} elements, got {value!r}")
    return t


class PoolParams:
    """Normalised ``ksize``/``stride``/``pad`` of an N-d pooling."""

    def __init__(
        self, ndim: int, ksize: Any, stride: Any, pad: Any, cover_all: bool, fname: str
    ) -> None:
        self.ndim = ndim
        self.fname = fname
        self.k = as_tuple(ksize, ndim, fname, "ksize")
        self.s = self.k if stride is None else as_tuple(stride, ndim, fname, "stride")
        self.p = as_tuple(pad, ndim, fname, "pad")
        self.cover_all = bool(cover_all)
        if any(v <= 0 for v in self.k) or any(v <= 0 for v in self.s):
            raise ValueError(
                f"{fname}: ksize and stride must be positive, got "
                f"ksize={ksize!r}, stride={stride!r}"
            )
        if any(v < 0 for v in self.p):
            raise ValueError(f"{fname}: pad must be non-negative, got {pad!r}")

    def out_size(self, insz: tuple[int, ...]) -> tuple[int, ...]:
        out = tuple(
            utils.get_conv_outsize(n, k, s, p, cover_all=self.cover_all)
            for n, k, s, p in zip(insz, self.k, self.s, self.p)
        )
        if any(o <= 0 for o in out):
            raise ValueError(
                f"{self.fname}: the output size {out} is not positive "
                f"(input {tuple(insz)}, ksize {self.k}, stride {self.s}, "
                f"pad {self.p})"
            )
        return out

    def padded(self, insz: tuple[int, ...], out: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(
            max(n + 2 * p, (o - 1) * s + k)
            for n, p, o, s, k in zip(insz, self.p, out, self.s, self.k)
        )

    def offsets(self) -> list[tuple[int, ...]]:
        return list(itertools.product(*[range(v) for v in self.k]))

    def window(self, off: tuple[int, ...], out: tuple[int, ...]) -> tuple[slice, ...]:
        return (slice(None), slice(None)) + tuple(
            slice(o, o + (n - 1) * s + 1, s) for o, n, s in zip(off, out, self.s)
        )

    def crop(self, insz: tuple[int, ...]) -> tuple[slice, ...]:
        return (slice(None), slice(None)) + tuple(
            slice(p, p + n) for p, n in zip(self.p, insz)
        )


def _xp(x: Any) -> Any:
    if isinstance(x, numpy.ndarray):
        return numpy
    import cupy

    return cupy


# Samples per chunk are chosen so that one chunk of the input stays in cache
# across the prod(ksize) passes over it.
_CHUNK_BYTES = 2 << 20


def _chunks(x: Any) -> list[slice]:
    n = x.shape[0]
    per = x[0:1].nbytes if n else 1
    step = max(1, min(n, _CHUNK_BYTES // max(1, per)))
    return [slice(i, i + step) for i in range(0, n, step)]


# On NumPy the single reshape-and-max reduction (over short strided window
# axes) only beats the running maximum below ~512 elements: at LeNet sizes
# (100, 6, 24, 24) it took 7.2 ms against 0.22 ms for the running maximum.
_NUMPY_REDUCE_MAX = 512


def max_forward(x: Any, pp: PoolParams, out: tuple[int, ...]) -> Any:
    """Max over each window (running ``maximum``, one op per kernel offset)."""
    if (
        x.nbytes <= _CHUNK_BYTES
        and (x.size <= _NUMPY_REDUCE_MAX or not isinstance(x, numpy.ndarray))
        and pp.s == pp.k
        and not any(pp.p)
        and all(n == o * k for n, o, k in zip(x.shape[2:], out, pp.k))
    ):
        # Small input, windows tile it exactly: one reduction (low overhead).
        split = x.shape[:2] + tuple(v for o, k in zip(out, pp.k) for v in (o, k))
        axes = tuple(range(3, 3 + 2 * len(out), 2))
        return x.reshape(split).max(axis=axes)
    parts = _chunks(x)
    if len(parts) == 1:
        return _max_forward(x, pp, out)
    y = _xp(x).empty(x.shape[:2] + out, dtype=x.dtype)
    for sl in parts:
        y[sl] = _max_forward(x[sl], pp, out)
    return y


def max_backward(x: Any, y: Any, g: Any, pp: PoolParams) -> Any:
    """Gradient of max pooling (see :func:`_max_backward`), chunked over samples."""
    parts = _chunks(x)
    if len(parts) == 1:
        return _max_backward(x, y, g, pp)
    gx = _xp(x).empty(x.shape, dtype=g.dtype)
    for sl in parts:
        gx[sl] = _max_backward(x[sl], y[sl], g[sl], pp)
    return gx


def pad_to(x: Any, pp: PoolParams, P: tuple[int, ...], value: float) -> Any:
    """``x`` placed at offset ``pad`` in an array of spatial size ``P``."""
    insz = tuple(x.shape[2:])
    if not any(pp.p) and insz == P:
        return x
    xp = _xp(x)
    out = xp.full(x.shape[:2] + P, value, dtype=x.dtype)
    out[pp.crop(insz)] = x
    return out


def _max_forward(x: Any, pp: PoolParams, out: tuple[int, ...]) -> Any:
    xp = _xp(x)
    P = pp.padded(tuple(x.shape[2:]), out)
    xpad = pad_to(x, pp, P, -numpy.inf)
    offs = pp.offsets()
    y = xpad[pp.window(offs[0], out)].copy()
    for off in offs[1:]:
        xp.maximum(y, xpad[pp.window(off, out)], out=y)
    return y


def max_indices(x: Any, y: Any, pp: PoolParams) -> Any:
    """Flattened in-window index of the first maximum (int8/int32, y's shape)."""
    xp = _xp(x)
    out = tuple(y.shape[2:])
    P = pp.padded(tuple(x.shape[2:]), out)
    xpad = pad_to(x, pp, P, -numpy.inf)
    offs = pp.offsets()
    # int8 while computing (less memory traffic); int32 is what callers see.
    it = numpy.int8 if len(offs) <= 127 else numpy.int32
    idx = xp.zeros(y.shape, dtype=it)
    mask = xp.empty(y.shape, dtype=bool)
    for o in range(len(offs) - 1, 0, -1):
        xp.equal(xpad[pp.window(offs[o], out)], y, out=mask)
        xp.copyto(idx, it(o), where=mask)
    return idx


def _flat_positions(idx: Any, pp: PoolParams, P: tuple[int, ...], xp: Any) -> Any:
    """Flat position in the padded ``(N, C, *P)`` array of each selected element."""
    out = tuple(idx.shape[2:])
    nd = len(P)
    pstr = [1] * nd
    for a in range(nd - 2, -1, -1):
        pstr[a] = pstr[a + 1] * P[a + 1]
    off = numpy.zeros(pp.k, dtype=numpy.int64)
    base = numpy.zeros(out, dtype=numpy.int64)
    for a in range(nd):
        sh = [1] * nd
        sh[a] = -1
        off = off + (numpy.arange(pp.k[a]) * pstr[a]).reshape(sh)
        base = base + (numpy.arange(out[a]) * pp.s[a] * pstr[a]).reshape(sh)
    plane = pstr[0] * P[0]
    nc = idx.shape[0] * idx.shape[1]
    lead = (xp.arange(nc, dtype=numpy.int64) * plane).reshape(idx.shape[:2] + (1,) * nd)
    return lead + xp.asarray(base) + xp.asarray(off.ravel())[idx]


def index_scatter(idx: Any, g: Any, pp: PoolParams, outsz: tuple[int, ...]) -> Any:
    """``res[window(i) at idx[i]] += g[i]``; ``res`` has spatial size ``outsz``."""
    xp = _xp(g)
    insz = tuple(g.shape[2:])
    P = tuple(
        max(n + 2 * p, (o - 1) * s + k)
        for n, p, o, s, k in zip(outsz, pp.p, insz, pp.s, pp.k)
    )
    size = g.shape[0] * g.shape[1]
    for v in P:
        size *= v
    flat = _flat_positions(idx, pp, P, xp).ravel()
    if all(s >= k for s, k in zip(pp.s, pp.k)):
        # Windows do not overlap: every position is written at most once.
        res = xp.zeros(size, dtype=g.dtype)
        res[flat] = g.ravel()
    else:
        res = xp.bincount(flat, weights=g.ravel(), minlength=size).astype(g.dtype)
    return res.reshape(g.shape[:2] + P)[pp.crop(outsz)]


def _max_backward(x: Any, y: Any, g: Any, pp: PoolParams) -> Any:
    """Gradient of max pooling without materialising the argmax.

    For each kernel offset (in order) the positions equal to the maximum that
    no earlier offset has claimed receive ``g``: the first maximum wins, as in
    :func:`max_indices`.
    """
    xp = _xp(x)
    insz = tuple(x.shape[2:])
    out = tuple(y.shape[2:])
    P = pp.padded(insz, out)
    xpad = pad_to(x, pp, P, -numpy.inf)
    res = xp.zeros(x.shape[:2] + P, dtype=g.dtype)
    offs = pp.offsets()
    free = xp.ones(y.shape, dtype=bool)  # no earlier offset claimed it yet
    mask = xp.empty(y.shape, dtype=bool)
    tmp = xp.empty(y.shape, dtype=g.dtype)
    finite = bool(xp.isfinite(g).all())
    last = len(offs) - 1
    for o, off in enumerate(offs):
        w = pp.window(off, out)
        xp.equal(xpad[w], y, out=mask)
        if o:
            xp.logical_and(mask, free, out=mask)
        if o < last:
            xp.logical_xor(free, mask, out=free)  # mask is a subset of free
        if finite:
            xp.multiply(g, mask, out=tmp)
        else:  # inf * False would leak NaN into non-argmax positions
            tmp = xp.where(mask, g, g.dtype.type(0))
        res[w] += tmp
    return res[pp.crop(insz)]


def index_gather(idx: Any, x: Any, pp: PoolParams) -> Any:
    """``res[i] = x_pad[window(i) at idx[i]]``; ``res`` has ``idx``'s shape."""
    xp = _xp(x)
    out = tuple(idx.shape[2:])
    P = pp.padded(tuple(x.shape[2:]), out)
    xpad = pad_to(x, pp, P, 0.0)
    res = xp.zeros(idx.shape, dtype=x.dtype)
    for o, off in enumerate(pp.offsets()):
        xp.copyto(res, xpad[pp.window(off, out)], where=idx == o)
    return res


def sum_pool(x: Any, pp: PoolParams, out: tuple[int, ...]) -> Any:
    P = pp.padded(tuple(x.shape[2:]), out)
    xpad = pad_to(x, pp, P, 0.0)
    offs = pp.offsets()
    y = xpad[pp.window(offs[0], out)].copy()
    for off in offs[1:]:
        y += xpad[pp.window(off, out)]
    return y


def sum_unpool(g: Any, pp: PoolParams, outsz: tuple[int, ...]) -> Any:
    """Adjoint of :func:`sum_pool`: every input value added over its window."""
    xp = _xp(g)
    insz = tuple(g.shape[2:])
    P = tuple(
        max(n + 2 * p, (o - 1) * s + k)
        for n, p, o, s, k in zip(outsz, pp.p, insz, pp.s, pp.k)
    )
    res = xp.zeros(g.shape[:2] + P, dtype=g.dtype)
    for off in pp.offsets():
        res[pp.window(off, insz)] += g
    return res[pp.crop(outsz)]


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
