"""Element-wise optimizer kernels run over flat buffers, blocked and threaded.

The packed update (:mod:`kusari.optimizers._fused_update`) keeps the
parameters of one rule type and dtype in one contiguous buffer; here the
rule's element-wise kernel (the same function its per-parameter
``update_core_cpu`` runs) is applied over such a buffer block by block
(:func:`run_blocks`): each block's gradients are read in place or gathered
into a cache-sized scratch block, and every pass of the formula runs on
data in cache, split over the intra-op threads (:mod:`kusari.utils.threads`).
Results are therefore identical to the per-parameter update.  A kernel
with a scratch-free ``whole`` routine (SGD's axpy) runs it over the
parameters' ranges instead (:func:`run_whole`).

The cuts depend on the layout, the ranges of equal constants and the
thread count only; a caller passes a dict per layout to keep them.
"""

from __future__ import annotations

import bisect
import contextlib
from collections.abc import Callable
from typing import Any

import numpy

from kusari.utils import threads

# Elements per block of the blocked update. Measured (CPU time, one thread,
# AMD EPYC with 1 MiB L2 per core) on 39M float32 parameters: Adam 106 ms
# at 16K elements, 99 ms at 32K, 97 ms at 128K, against 290-340 ms for the
# former unblocked per-parameter formula; larger blocks also cut the Python
# overhead per block, which is what SGD's two passes are sensitive to. On
# the 1.8M parameters of an MLP 784-1000-1000-10 (same machine, four
# optimizers interleaved, best of 60), 256K beat 128K by 5-8% for both SGD
# (0.96 vs 1.03 ms) and Adam (3.90 vs 4.13 ms); 512K was slower again.
BLOCK = 1 << 18
# The smallest block when a smaller BLOCK spreads the update over the
# intra-op threads (below it the per-block calls cost more than they share).
MIN_BLOCK = 1 << 15

Kernel = Callable[..., None]


def _flat(a: Any) -> Any:
    return a.reshape(-1)


class ElementwiseKernel:
    """An in-place update ``kernel(consts, p, g, state, t1, t2)`` on blocks.

    ``p`` and the arrays of ``state`` (a dict) are updated in place from
    ``g``; ``t1`` and ``t2`` are scratch arrays of the same length. A kernel
    that calls BLAS (``blas=True``) runs with BLAS held to one thread: its
    blocks are already the pool threads' shares, and BLAS's own threads
    would spin on the cores the pool needs.

    A stateless kernel may also have a ``whole(consts, p, g) -> bool``: one
    call over flat C-contiguous ranges of any length, with no scratch (e.g.
    a BLAS level-1 routine), computing each element alone so that it gives
    the blocked kernel's bits however the arrays are cut (see
    :func:`run_whole`). When it answers False (no such routine for this
    dtype), the blocked kernel's function runs on that range instead.
    """

    def __init__(
        self,
        fn: Kernel,
        n_temps: int = 2,
        blas: bool = False,
        whole: Callable[[Any, Any, Any], bool] | None = None,
    ) -> None:
        self.fn = fn
        self.n_temps = n_temps
        self.blas = blas
        self.whole = whole

    def held(self) -> Any:
        """The context the kernel runs in (BLAS at one thread when it calls it)."""
        return threads.one_blas_thread() if self.blas else contextlib.nullcontext()

    def apply(self, consts: Any, p: Any, g: Any, state: dict[str, Any]) -> None:
        """Update one parameter's arrays (any shape), blocked and threaded."""
        if (
            type(g) is numpy.ndarray
            and not g.flags.c_contiguous
            and g.shape == p.shape
            and g.dtype == p.dtype
        ):
            # Read from a contiguous copy, as the packed update reads it:
            # the same arithmetic either way.
            g = numpy.ascontiguousarray(g)
        if (
            self.whole is not None
            and not state
            and p.flags.c_contiguous
            and g.shape == p.shape
        ):
            run_whole(self, [consts], [_flat(p)], [_flat(g)])
            return
        arrays = [p, g, *state.values()]
        if not all(
            a.flags.c_contiguous and a.shape == p.shape and a.dtype == p.dtype
            for a in arrays
        ):
            temps = [numpy.empty_like(p) for _ in range(self.n_temps)]
            with self.held():
                self.fn(consts, p, g, state, *temps)
            return
        sflat = {k: _flat(v) for k, v in state.items()}
        run_blocks(
            self, [(0, p.size, consts)], _flat(p), sflat, [_flat(g)], [0, p.size]
        )


# A piece of the blocked update: buffer range start:stop, the index of its
# ``ranges`` entry (its constants) and of the parameter whose gradient it
# reads in place, or -1 when the gradients of several are gathered.
Piece = tuple[int, int, int, int]


def plan_pieces(
    bounds: tuple[tuple[int, int], ...], offsets: list[int], block: int
) -> list[Piece]:
    """Cut the buffer ranges ``bounds`` into blocks of at most ``block``.

    A block inside one parameter reads that parameter's gradient where it
    lies; a block of several small parameters gathers theirs.

    Args:
        bounds: ``(start, stop)`` of each range, in buffer order.
        offsets: Start of each parameter in the buffer, then the total size.
        block: The largest block, in elements.

    Returns:
        The pieces ``(start, stop, range index, parameter index or -1)``.
    """
    pieces: list[Piece] = []
    last = len(offsets) - 1
    for r, (a, b) in enumerate(bounds):
        i = bisect.bisect_right(offsets, a) - 1
        pos = a
        while pos < b:
            lo, hi = offsets[i], min(offsets[i + 1], b)
            if hi - pos >= block or hi - lo >= block:
                # A large parameter: blocks of its own gradient.
                stop = min(hi, pos + block)
                pieces.append((pos, stop, r, i))
                pos = stop
                if pos == offsets[i + 1]:
                    i += 1
                continue
            # Small parameters: gather as many as fit in a block.
            stop = hi
            j = i + 1
            while j < last and offsets[j + 1] <= min(b, pos + block):
                stop = offsets[j + 1]
                j += 1
            pieces.append((pos, stop, r, -1))
            pos = stop
            i = j
    return pieces


# Plans kept per buffer (see run_blocks' ``cache``); a few cover the
# thread counts and constant groupings a training run goes through.
_PLANS_KEPT = 8


def run_blocks(
    kernel: ElementwiseKernel,
    ranges: list[tuple[int, int, Any]],
    p: Any,
    state: dict[str, Any],
    grads: list[Any],
    offsets: list[int],
    cache: dict[Any, list[Piece]] | None = None,
) -> None:
    """Apply ``kernel`` over the flat ``p`` / ``state`` buffers.

    The buffer is cut into blocks of at most :data:`BLOCK` elements (see
    :func:`plan_pieces`).

    Args:
        kernel: The update.
        ranges: ``(start, stop, consts)`` element ranges of the buffer.
        p: The flat parameter buffer.
        state: Flat state buffers by name.
        grads: The flat gradient of each packed parameter, in buffer order.
        offsets: Start of each parameter in the buffer, then the total size.
        cache: Where the cut is kept for the next call with the same ranges
            (one dict per buffer layout: ``offsets`` is not part of its key).
    """
    total = sum(b - a for a, b, _ in ranges)
    nbytes = total * p.itemsize * (3 + len(state))
    block = BLOCK
    threads_wanted = threads.plan(nbytes, total // MIN_BLOCK)
    if threads_wanted > 1:
        # Several blocks per thread (see threads.OVERSPLIT): with a model
        # of a few BLOCKs, one thread would otherwise get most of the work.
        per = -(-total // (threads_wanted * threads.OVERSPLIT))
        block = min(BLOCK, max(MIN_BLOCK, per))
    bounds = tuple((a, b) for a, b, _ in ranges)
    pieces = None if cache is None else cache.get((bounds, block))
    if pieces is None:
        pieces = plan_pieces(bounds, offsets, block)
        if cache is not None:
            if len(cache) >= _PLANS_KEPT:
                cache.clear()
            cache[bounds, block] = pieces
    if not pieces:
        return

    def work(lo: int, hi: int) -> None:
        mine = pieces[lo:hi]
        cap = max(e - s for s, e, _, _ in mine)  # small models: small scratch
        gbuf: Any = None
        temps = [numpy.empty(cap, dtype=p.dtype) for _ in range(kernel.n_temps)]
        for s, e, r, i in mine:
            m = e - s
            if i < 0:
                if gbuf is None:
                    gbuf = numpy.empty(cap, dtype=p.dtype)
                g = gbuf[:m]
                _gather(g, grads, offsets, s, e)
            else:
                g = grads[i][s - offsets[i] : e - offsets[i]]
            kernel.fn(
                ranges[r][2],
                p[s:e],
                g,
                {k: v[s:e] for k, v in state.items()},
                *[t[:m] for t in temps],
            )

    with kernel.held():
        threads.run_split(work, len(pieces), nbytes)


# A share of :func:`run_whole`: ``(array index, start, stop)`` ranges.
Chunk = list[tuple[int, int, int]]


def plan_chunks(sizes: list[int], n_chunks: int) -> list[Chunk]:
    """Cut arrays of ``sizes`` elements into about ``n_chunks`` even shares.

    An array longer than a share is cut; consecutive shorter ones are
    grouped until their sum reaches a share.

    Args:
        sizes: The length of each array, in order.
        n_chunks: The shares wanted (1: one share of every array, whole).

    Returns:
        The shares, each a list of ``(array index, start, stop)``.
    """
    total = sum(sizes)
    share = max(1, -(-total // max(1, n_chunks)))
    chunks: list[Chunk] = []
    cur: Chunk = []
    filled = 0
    for i, n in enumerate(sizes):
        pos = 0
        while pos < n:
            take = min(n - pos, share - filled)
            cur.append((i, pos, pos + take))
            pos += take
            filled += take
            if filled >= share:
                chunks.append(cur)
                cur, filled = [], 0
    if cur:
        chunks.append(cur)
    return chunks


def run_whole(
    kernel: ElementwiseKernel,
    consts: list[Any],
    ps: list[Any],
    gs: list[Any],
    cache: dict[Any, Any] | None = None,
) -> bool:
    """``kernel.whole`` over flat ``ps`` / ``gs``, split over the pool.

    On one thread each array is one call. On several, the arrays are cut
    into :data:`threads.OVERSPLIT` shares per thread (one call per piece):
    the whole call computes each element alone, so the cut changes no bit.
    BLAS is held at one thread meanwhile: an OpenBLAS woken for a level-1
    call would leave a thread spinning, for about 0.1 s, on the cores that
    the pool's GEMMs of the next step need (an MLP step at two threads,
    interleaved on a loaded machine: median 22.5 ms with BLAS held, 56 ms
    with BLAS's own threads).

    Args:
        kernel: The kernel; its ``whole`` is called.
        consts: Each array's constants.
        ps: The flat arrays updated, C-contiguous.
        gs: Their flat gradients.
        cache: Where the cut is kept, per thread count (one dict per layout).

    Returns:
        True; False when ``whole`` declined a piece (no such routine for
        this dtype), whose update then ran the blocked kernel's arithmetic.
    """
    whole = kernel.whole
    assert whole is not None
    sizes = [p.size for p in ps]
    total = sum(sizes)
    nbytes = total * ps[0].itemsize * 3 if ps else 0
    pieces = threads.plan(nbytes, total // MIN_BLOCK)
    n_chunks = 1
    if pieces > 1:
        n_chunks = min(
            pieces * threads.OVERSPLIT, threads.MAX_CHUNKS, total // MIN_BLOCK
        )
    key = ("whole", n_chunks)
    chunks = None if cache is None else cache.get(key)
    if chunks is None:
        chunks = plan_chunks(sizes, n_chunks)
        if cache is not None:
            if len(cache) >= _PLANS_KEPT:
                cache.clear()
            cache[key] = chunks
    declined: list[bool] = []

    def work(j: int) -> None:
        for i, lo, hi in chunks[j]:
            p, g = ps[i][lo:hi], gs[i][lo:hi]
            if not whole(consts[i], p, g):
                declined.append(True)
                temps = [numpy.empty(hi - lo, p.dtype) for _ in range(kernel.n_temps)]
                kernel.fn(consts[i], p, g, {}, *temps)

    with threads.one_blas_thread():
        threads.parallel_for(work, len(chunks))
    return not declined


def _gather(out: Any, grads: list[Any], offsets: list[int], s: int, e: int) -> None:
    """Copy buffer range ``s:e`` of the concatenated ``grads`` into ``out``."""
    i = bisect.bisect_right(offsets, s) - 1
    pos = s
    while pos < e:
        lo = offsets[i]
        hi = min(offsets[i + 1], e)
        out[pos - s : hi - s] = grads[i][pos - lo : hi - lo]
        pos = hi
        i += 1
