"""Window geometry and data layouts of the pooling kernels (N-d).

Windows of stride ``s`` read the input with stride ``s``, and on NumPy such
strided element-wise operations run about five times slower than contiguous
ones (no SIMD, short inner loops).  Where windows overlap, the kernels first
split each padded input plane into its stride phases (:class:`_Phases`,
"space to depth"); every kernel offset is then one contiguous 1-d operation
over whole planes.  Disjoint windows inside the input are read in place
(:class:`_Direct`): each element is read once anyway.  Windows that tile the
input are reduced by one reshape where that is cheaper (global pooling, tiny
inputs, GPU).

On NumPy the work is blocked over groups of planes (``_CHUNK_BYTES``).
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

import numpy

from kusari import utils
from kusari.functions._params import as_tuple
from kusari.utils import threads


def _prod(values: Any) -> int:
    r = 1
    for v in values:
        r *= int(v)
    return r


def _strides(shape: Any) -> tuple[int, ...]:
    """Row-major element strides of ``shape``."""
    st = [1] * len(shape)
    for a in range(len(shape) - 2, -1, -1):
        st[a] = st[a + 1] * shape[a + 1]
    return tuple(st)


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

    def crop(self, insz: tuple[int, ...]) -> tuple[slice, ...]:
        return (slice(None), slice(None)) + tuple(
            slice(p, p + n) for p, n in zip(self.p, insz)
        )

    def overlapping(self, out: tuple[int, ...]) -> bool:
        """Whether an input position can lie in more than one of the windows."""
        return any(s < k and o > 1 for s, k, o in zip(self.s, self.k, out))

    def tiles(self, insz: tuple[int, ...], out: tuple[int, ...]) -> bool:
        """Whether the windows partition the input exactly."""
        return not any(self.p) and all(
            (s == k or o == 1) and o * k == n
            for s, k, o, n in zip(self.s, self.k, out, insz)
        )


def _xp(x: Any) -> Any:
    if isinstance(x, numpy.ndarray):
        return numpy
    import cupy

    return cupy


# Input bytes per block of planes.  Measured on the AlexNet pool1 case
# (64 x 96 x 55 x 55, 3 x 3 stride 2): 256 KiB blocks spend more in per-call
# overhead than they gain in cache hits, 8 MiB blocks fall out of cache;
# 1 to 4 MiB are within noise of each other.
_CHUNK_BYTES = 2 << 20


# Bytes of planes a block keeps at least when the work is split into more
# blocks than threads: each block costs some twenty NumPy calls (the phase
# copies, a compare and two maxima per kernel offset), and on several
# threads each call is a turn at the GIL. LeNet's pools at two threads,
# best of 8 (one thread: 1.64 / 0.95 / 0.64 / 0.36 ms): first pool forward /
# backward, second pool forward / backward with blocks of 256 kB 1.83 /
# 1.47 / 1.16 / 0.72 ms, of 1 MB 1.70 / 1.05 / 0.75 / 0.49, one block per
# thread 1.56 / 0.96 / 0.70 / 0.55.
_MIN_SPLIT_BYTES = 2 << 20


def _step(x: Any, nplanes: int, plane_bytes: int) -> int:
    """Planes per block (all of them off NumPy, where launches cost more)."""
    if not isinstance(x, numpy.ndarray):
        return max(1, nplanes)
    step = max(1, min(nplanes, _CHUNK_BYTES // max(1, plane_bytes)))
    # Several blocks per intra-op thread when the work is worth splitting:
    # with one each, a thread that starts late (its core busy) would hold
    # the others up; with a few, the free threads take over its blocks.
    # Small work keeps fewer, larger blocks (see _MIN_SPLIT_BYTES).
    pieces = threads.plan(2 * nplanes * plane_bytes, nplanes)
    if pieces > 1:
        total = nplanes * plane_bytes
        per = max(1, min(threads.OVERSPLIT, total // (pieces * _MIN_SPLIT_BYTES)))
        count = max(-(-nplanes // step), pieces * per)
        # A multiple of the pieces, so that the threads get even shares.
        count = -(-count // pieces) * pieces
        step = -(-nplanes // count)
    return step


class _Phases:
    """Space-to-depth layout of one plane of a padded pooling input.

    Along each axis, padded position ``q * s + d`` (``d < min(s, k)``) goes
    to phase ``d``, row ``q``.  Kernel offset ``o`` then reads, for
    consecutive outputs, consecutive rows of phase ``o % s`` starting at row
    ``o // s``.  Each phase plane has ``R = out + (k - 1) // s`` rows per axis
    (one more on the first axis when an inner axis shifts), so the reads of
    one kernel offset over a whole plane are a single run of ``L`` elements:
    outputs ``(i_0, ..., i_n)`` land at row-major position ``i`` in an
    ``(out_0, R_1, ..., R_n)`` "extended" array whose surplus rows are junk
    and are dropped.  Positions outside the input (padding, and beyond it for
    ``cover_all``) hold the fill value.
    """

    def __init__(
        self, pp: PoolParams, insz: tuple[int, ...], out: tuple[int, ...]
    ) -> None:
        k, s, p = pp.k, pp.s, pp.p
        self.nph = tuple(min(a, b) for a, b in zip(s, k))
        shift = [(kk - 1) // ss for kk, ss in zip(k, s)]
        R = [o + m for o, m in zip(out, shift)]
        if any(shift[1:]):
            R[0] += 1
        self.R = tuple(R)
        rstr = _strides(R)
        self.size = _prod(R)
        self.nphases = _prod(self.nph)
        self.L = out[0] * rstr[0]
        self.ext = (self.L,)
        self._grid = (out[0],) + self.R[1:]
        self.valid = (slice(None), slice(None)) + tuple(slice(0, o) for o in out[1:])
        self.trivial_ext = self.R[1:] == out[1:]
        phstr = _strides(self.nph)
        # (phase index, flat shift) of each kernel offset, in row-major order
        self.taps = [
            (
                sum((d % ss) * st for d, ss, st in zip(off, s, phstr)),
                sum((d // ss) * st for d, ss, st in zip(off, s, rstr)),
            )
            for off in pp.offsets()
        ]
        # Per phase: slices of the phase rows backed by input and of the
        # input itself, and the slabs of rows that are not.
        self.copies: list[Any] = []
        covered: list[set[int]] = [set() for _ in insz]
        for ph in itertools.product(*[range(n) for n in self.nph]):
            dst: list[slice] = []
            src: list[slice] = []
            rest: list[tuple[slice, ...]] = []
            for a, (d, ss, pa, n, Ra) in enumerate(zip(ph, s, p, insz, self.R)):
                lo = max(0, -((d - pa) // ss))
                hi = min(Ra, (n - 1 + pa - d) // ss + 1)
                lead = (slice(None),) * a
                if hi <= lo:
                    dst = []
                    break
                start = d + ss * lo - pa
                dst.append(slice(lo, hi))
                src.append(slice(start, start + ss * (hi - lo - 1) + 1, ss))
                covered[a].update(range(start, start + ss * (hi - lo), ss))
                if lo:
                    rest.append(lead + (slice(0, lo),))
                if hi < Ra:
                    rest.append(lead + (slice(hi, Ra),))
            self.copies.append((tuple(dst), tuple(src), rest) if dst else None)
        self.full_cover = all(len(c) == n for c, n in zip(covered, insz))

    def split(self, xc: Any, fill: float) -> Any:
        """``(P, *insz)`` planes to ``(P, nphases, size)`` phase planes."""
        xp = _xp(xc)
        P = xc.shape[0]
        ph = xp.empty((P, self.nphases) + self.R, dtype=xc.dtype)
        lead = (slice(None),)
        for i, c in enumerate(self.copies):
            d = ph[:, i]
            if c is None:
                d.fill(fill)
                continue
            dst, src, rest = c
            d[lead + dst] = xc[lead + src]
            for r in rest:
                d[lead + r] = fill
        return ph.reshape(P, self.nphases, self.size)

    def merge(self, G: Any, res: Any) -> None:
        """Adjoint of :meth:`split`: ``(P, nphases, size)`` into ``res``.

        ``res`` must be zero wherever no phase row maps (``full_cover``).
        """
        G = G.reshape((G.shape[0], self.nphases) + self.R)
        lead = (slice(None),)
        for i, c in enumerate(self.copies):
            if c is not None:
                dst, src, _ = c
                res[lead + src] = G[:, i][lead + dst]

    def to_ext(self, buf: Any, a: Any) -> Any:
        """``a`` ``(P, *out)`` placed in the extended layout ``(P, L)``.

        ``buf``'s junk entries are left as they are (callers zero them once).
        """
        if self.trivial_ext:
            return a.reshape(a.shape[0], self.L)
        buf.reshape((buf.shape[0],) + self._grid)[self.valid] = a
        return buf

    def from_ext(self, ext: Any) -> Any:
        """The ``(P, *out)`` view of the outputs in an extended ``(P, L)``."""
        return ext.reshape((ext.shape[0],) + self._grid)[self.valid]

    def block_bytes(self, itemsize: int) -> int:
        return self.nphases * self.size * itemsize

    def tap_views(self, xc: Any, fill: float) -> list[Any]:
        """The ``(P, L)`` input of each kernel offset for planes ``xc``."""
        ph = self.split(xc, fill)
        L = self.L
        return [ph[:, p, s : s + L] for p, s in self.taps]


class _Direct:
    """Windows read in place: strided views of the (padded) input.

    On NumPy used only when windows are disjoint and inside the input
    (``disjoint``), where each element is read once and the phase split
    would only add a copy; on a GPU strided reads cost little, so always.
    """

    def __init__(self, pp: PoolParams, insz: tuple[int, ...], out: tuple[int, ...]):
        self.ext = out
        self.P = pp.padded(insz, out)
        self.padded = self.P != tuple(insz)
        self.crop = (slice(None),) + tuple(slice(p, p + n) for p, n in zip(pp.p, insz))
        self.disjoint = not self.padded and not pp.overlapping(out)
        self.size = _prod(self.P)
        self.wins = [
            (slice(None),)
            + tuple(slice(d, d + (o - 1) * s + 1, s) for d, o, s in zip(off, out, pp.s))
            for off in pp.offsets()
        ]

    def block_bytes(self, itemsize: int) -> int:
        return self.size * itemsize

    def tap_views(self, xc: Any, fill: float) -> list[Any]:
        if self.padded:
            xpad = _xp(xc).full((xc.shape[0],) + self.P, fill, dtype=xc.dtype)
            xpad[self.crop] = xc
            xc = xpad
        return [xc[w] for w in self.wins]

    @staticmethod
    def from_ext(ext: Any) -> Any:
        return ext

    def unpool(self, gs: Any, tiles: bool) -> Any:
        """Adjoint of summing the windows: ``(P, *out)`` to ``(P, *insz)``."""
        xp = _xp(gs)
        if self.disjoint:
            res = (xp.empty if tiles else xp.zeros)(
                (gs.shape[0],) + self.P, dtype=gs.dtype
            )
            for w in self.wins:
                res[w] = gs
            return res
        res = xp.zeros((gs.shape[0],) + self.P, dtype=gs.dtype)
        for w in self.wins:
            res[w] += gs
        return res[self.crop] if self.padded else res


@functools.lru_cache(maxsize=256)
def _make_layout(
    k: tuple[int, ...],
    s: tuple[int, ...],
    p: tuple[int, ...],
    insz: tuple[int, ...],
    out: tuple[int, ...],
    phases: bool,
) -> _Phases | _Direct:
    pp = PoolParams(len(k), k, s, p, False, "pooling")
    return _Phases(pp, insz, out) if phases else _Direct(pp, insz, out)


# Above this many input bytes, max pooling with the argmax splits even
# disjoint windows into phases: one strided read of x then beats two strided
# reads per window position (16 x 64 x 224 x 224, 2 x 2: 74 ms against 93 ms;
# at LeNet sizes the split's fixed cost makes it a wash or a loss).
_SPLIT_ARGMAX_BYTES = 1 << 20


def _layout(
    x: Any,
    pp: PoolParams,
    insz: tuple[int, ...],
    out: tuple[int, ...],
    want_idx: bool = False,
) -> Any:
    """The layout of a pooling of ``insz`` to ``out`` for arrays like ``x``
    (cached: building a :class:`_Phases` costs as much as pooling a small
    input)."""
    phases = False
    if isinstance(x, numpy.ndarray):
        inside = pp.padded(insz, out) == tuple(insz)
        disjoint = inside and not pp.overlapping(out)
        phases = not disjoint or (want_idx and x.nbytes >= _SPLIT_ARGMAX_BYTES)
    return _make_layout(pp.k, pp.s, pp.p, tuple(insz), tuple(out), phases)


def _by_reduction(x: Any, pp: PoolParams, out: tuple[int, ...]) -> bool:
    """Whether to pool with one reshape-and-reduce (windows tile ``x``).

    One reduction replaces ``prod(ksize)`` passes: a win for global pooling
    (the window is contiguous), at a few hundred elements (per-call overhead
    dominates) and on a GPU (one launch).  Otherwise NumPy's reductions over
    short strided axes lose to the passes (7.2 ms against 0.22 ms at
    100 x 6 x 24 x 24, 2 x 2).
    """
    return pp.tiles(tuple(x.shape[2:]), out) and (
        all(o == 1 for o in out) or x.size <= 512 or not isinstance(x, numpy.ndarray)
    )


def _split_windows(x: Any, pp: PoolParams, out: tuple[int, ...]) -> Any:
    """``x`` (windows tile it) as ``(N, C, o_1, k_1, ..., o_n, k_n)``, a view."""
    N, C = x.shape[:2]
    return x.reshape((N, C) + tuple(v for o, k in zip(out, pp.k) for v in (o, k)))


def _window_axes(nd: int) -> tuple[int, ...]:
    return tuple(range(3, 3 + 2 * nd, 2))
